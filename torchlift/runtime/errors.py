"""Exceptions a user sees. `MisconfigurationException` is a ValueError, so `except ValueError`
works; Lightning's name is kept because converted scripts may catch it."""


class MisconfigurationException(ValueError):
    """A Trainer / LightningModule setting or return value is not one the runtime accepts."""
