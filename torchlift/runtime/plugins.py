"""`lightning.pytorch.plugins`' precision plugins, for `Trainer(plugins=[...])`: a script
handing the Trainer a `MixedPrecision("16-mixed", device, scaler=scaler)` of its own GradScaler."""

from torchlift.runtime.precision import DoublePrecision, MixedPrecision, Precision

__all__ = ["DoublePrecision", "MixedPrecision", "Precision"]
