from torchlift.runtime.utilities.rank_zero import rank_zero_info, rank_zero_only, rank_zero_warn

__all__ = ["rank_zero_info", "rank_zero_only", "rank_zero_warn"]
