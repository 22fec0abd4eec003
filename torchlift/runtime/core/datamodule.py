"""`LightningDataModule`: prepare_data / setup(stage) / *_dataloader, Lightning 2.x's names."""

from __future__ import annotations

from typing import Any

from torchlift.runtime.core.hparams import HyperparametersMixin


class LightningDataModule(HyperparametersMixin):
    CHECKPOINT_HYPER_PARAMS_KEY = "datamodule_hyper_parameters"
    CHECKPOINT_HYPER_PARAMS_NAME = "datamodule_hparams_name"
    CHECKPOINT_HYPER_PARAMS_TYPE = "datamodule_hparams_type"

    def __init__(self) -> None:
        self.trainer = None
        self.prepare_data_per_node = True
        self.allow_zero_length_dataloader_with_multiple_devices = False

    def prepare_data(self) -> None: ...
    def setup(self, stage: str) -> None: ...
    def teardown(self, stage: str) -> None: ...

    def train_dataloader(self) -> Any:
        raise NotImplementedError(
            "`train_dataloader` must be implemented to be used with the Trainer"
        )

    def val_dataloader(self) -> Any:
        raise NotImplementedError(
            "`val_dataloader` must be implemented to be used with the Trainer"
        )

    def test_dataloader(self) -> Any:
        raise NotImplementedError(
            "`test_dataloader` must be implemented to be used with the Trainer"
        )

    def predict_dataloader(self) -> Any:
        raise NotImplementedError(
            "`predict_dataloader` must be implemented to be used with the Trainer"
        )

    def transfer_batch_to_device(self, batch: Any, device: Any, dataloader_idx: int) -> Any:
        from torchlift.runtime.utilities.transfer import move_data_to_device

        return move_data_to_device(batch, device)

    def on_before_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        return batch

    def on_after_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        return batch

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...
    def on_exception(self, exception: BaseException) -> None: ...
