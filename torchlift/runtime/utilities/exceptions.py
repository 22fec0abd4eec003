"""Mirror of `lightning.pytorch.utilities.exceptions`."""

from torchlift.runtime.errors import MisconfigurationException

__all__ = ["MisconfigurationException"]
