"""Cases of patterns/hyperparameters.py: literal hyper-parameters -> save_hyperparameters."""

_LOOP = """
{setup}
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y) * {factor}
        loss.backward()
        optimizer.step()
"""

CONVERTS = {
    "numbers_and_a_dict_of_literals_are_saved": (
        _LOOP.format(
            setup='weight = 0.5\ncfg = {"scale": 2, "name": "run", "betas": (0.9, 0.99)}',
            factor='weight * cfg["scale"]',
        ),
        [
            "super().__init__()\n"
            '        self.save_hyperparameters(ignore=["model", "criterion"])\n'
            "        self.model = model\n"
            "        self.criterion = criterion\n",
            'self.hparams.weight * self.hparams.cfg["scale"]',
        ],
        ["self.weight =", "self.cfg ="],
    ),
    "a_tensor_is_not_a_hyperparameter": (
        _LOOP.format(setup="weight = torch.tensor(0.5)", factor="weight"),
        ["self.weight = weight", "* self.weight"],
        ["save_hyperparameters", "hparams"],
    ),
    "a_dict_changed_before_the_loop_stays_an_attribute": (
        _LOOP.format(setup='cfg = {"scale": 2}\ncfg["scale"] = 3', factor='cfg["scale"]'),
        ["self.cfg = cfg"],
        ["save_hyperparameters"],
    ),
    "an_argparse_namespace_stays_an_attribute": (
        _LOOP.format(
            setup="import argparse\nparser = argparse.ArgumentParser()\n"
            'parser.add_argument("--scale", type=float, default=1.0)\n'
            "args = parser.parse_args([])",
            factor="args.scale",
        ),
        ["self.args = args", "* self.args.scale"],
        ["save_hyperparameters"],
    ),
    "a_dataclass_instance_stays_an_attribute": (
        _LOOP.format(
            setup="from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n"
            "    scale: float = 1.0\n\n\ncfg = Config()",
            factor="cfg.scale",
        ),
        ["self.cfg = cfg", "* self.cfg.scale"],
        ["save_hyperparameters"],
    ),
    "a_name_bound_to_another_literal_name": (
        _LOOP.format(setup="base = 0.5\nweight = base", factor="weight"),
        ['self.save_hyperparameters(ignore=["model", "criterion"])', "self.hparams.weight"],
        [],
    ),
}
