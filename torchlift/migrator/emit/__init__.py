"""Transform (complete plans only): the generated LightningModule class, the Trainer calls,
the edits applied to the module, the import."""
