"""A hypothesis strategy for plain PyTorch training scripts, composed from interchangeable parts.

Every script it renders trains a tiny MLP for a few steps on synthetic data on CPU (about a
second), and is one that a faithful migration must convert without changing a single loss:
whole accumulation groups per epoch, optimizer built once, loaders iterated in a fixed order.

    spec = ScriptSpec(...)            # or: script_specs() in a @given
    source = render_script(spec)

The spec is a frozen dataclass so that hypothesis prints a readable, shrunk failing case.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

FEATURES, HIDDEN, CLASSES = 8, 16, 3


@dataclass(frozen=True)
class Names:
    model: str = "model"
    optimizer: str = "optimizer"
    criterion: str = "criterion"
    loader: str = "train_loader"
    val_loader: str = "val_loader"
    scheduler: str = "scheduler"
    x: str = "inputs"
    y: str = "targets"
    out: str = "outputs"
    loss: str = "loss"
    epoch: str = "epoch"
    batch: str = "batch"
    index: str = "i"
    model_class: str = "Net"


@dataclass(frozen=True)
class ScriptSpec:
    names: Names = Names()
    layout: str = "module"  # module | main | guard (all code under `if __name__ == "__main__":`)
    nn_import: str = (
        "nn"  # nn: import torch.nn as nn | tnn: import torch.nn as tnn | from: from torch import nn
    )
    optim_import: str = "module"  # module | from_torch | class | qualified
    loss_kind: str = "ce"  # ce (nn.CrossEntropyLoss) | functional (F.cross_entropy) | mse
    optimizer_kind: str = "sgd"  # sgd | adam
    momentum: bool = False
    dropout: bool = False
    batch_kind: str = "tuple"  # tuple (for x, y in loader) | unpack (x, y = batch) | dict | index
    iteration: str = "plain"  # plain | enumerate | tqdm
    zero_grad: str = "first"  # first | before_backward | after_step
    zero_grad_call: str = "optimizer"  # optimizer | set_to_none | model
    device: str = "none"  # none | cpu | auto
    validation: bool = False
    scheduler: str = "none"  # none | epoch | step
    clipping: str = "none"  # none | norm | value
    accumulation: int = 1
    seed: int | None = 0
    epochs: int = 2
    one_based_epochs: bool = False
    batches: int = 3
    batch_size: int = 4
    shuffle: bool = False
    running_loss: bool = False
    train_mode_each_epoch: bool = False
    use_model_after: bool = False
    # One entry per gap between statements of the training loop: "" none, "blank", or a comment.
    decorations: tuple[str, ...] = ()


# Disjoint pools, so that no two roles (nor a module alias such as `optim` or `F`) share a name.
MODEL_NAMES = ["model", "net", "classifier", "mlp_model"]
OPTIMIZER_NAMES = ["optimizer", "opt", "sgd_opt", "optimiser"]
CRITERION_NAMES = ["criterion", "loss_fn", "loss_func", "objective"]
LOADER_NAMES = ["train_loader", "loader", "train_dl", "dl"]
VAL_LOADER_NAMES = ["val_loader", "valid_dl", "eval_loader"]
SCHEDULER_NAMES = ["scheduler", "lr_sched", "sched"]
XY_NAMES = [
    ("inputs", "targets"),
    ("x", "y"),
    ("data", "target"),
    ("xb", "yb"),
    ("images", "labels"),
]
OUT_NAMES = ["outputs", "logits", "preds", "out"]
LOSS_NAMES = ["loss", "batch_loss", "train_loss"]
EPOCH_NAMES = ["epoch", "ep", "e"]
BATCH_NAMES = ["batch", "sample", "mb"]
INDEX_NAMES = ["i", "step", "batch_idx", "it"]
CLASS_NAMES = ["Net", "MLP", "TinyClassifier", "Model"]
COMMENTS = ["# forward pass", "# TODO: try a bigger batch", "# noqa", "#", "# compute the loss"]


@st.composite
def names(draw) -> Names:
    x, y = draw(st.sampled_from(XY_NAMES))
    return Names(
        model=draw(st.sampled_from(MODEL_NAMES)),
        optimizer=draw(st.sampled_from(OPTIMIZER_NAMES)),
        criterion=draw(st.sampled_from(CRITERION_NAMES)),
        loader=draw(st.sampled_from(LOADER_NAMES)),
        val_loader=draw(st.sampled_from(VAL_LOADER_NAMES)),
        scheduler=draw(st.sampled_from(SCHEDULER_NAMES)),
        x=x,
        y=y,
        out=draw(st.sampled_from(OUT_NAMES)),
        loss=draw(st.sampled_from(LOSS_NAMES)),
        epoch=draw(st.sampled_from(EPOCH_NAMES)),
        batch=draw(st.sampled_from(BATCH_NAMES)),
        index=draw(st.sampled_from(INDEX_NAMES)),
        model_class=draw(st.sampled_from(CLASS_NAMES)),
    )


@st.composite
def script_specs(draw) -> ScriptSpec:
    """Training-script variants; every combination is a script that runs."""
    accumulation = draw(st.sampled_from([1, 1, 2]))
    iteration = draw(st.sampled_from(["plain", "enumerate", "tqdm"]))
    if accumulation > 1:
        iteration = "enumerate"  # the `(i + 1) % k` test needs the batch index
    return ScriptSpec(
        names=draw(names()),
        layout=draw(st.sampled_from(["module", "main", "guard"])),
        nn_import=draw(st.sampled_from(["nn", "tnn", "from"])),
        optim_import=draw(st.sampled_from(["module", "from_torch", "class", "qualified"])),
        loss_kind=draw(st.sampled_from(["ce", "functional", "mse"])),
        optimizer_kind=draw(st.sampled_from(["sgd", "adam"])),
        momentum=draw(st.booleans()),
        dropout=draw(st.booleans()),
        batch_kind=draw(st.sampled_from(["tuple", "unpack", "dict", "index"])),
        iteration=iteration,
        zero_grad=draw(st.sampled_from(["first", "before_backward", "after_step"])),
        zero_grad_call=draw(st.sampled_from(["optimizer", "set_to_none", "model"])),
        device=draw(st.sampled_from(["none", "cpu", "auto"])),
        validation=draw(st.booleans()),
        scheduler=draw(st.sampled_from(["none", "epoch", "step"])),
        clipping=draw(st.sampled_from(["none", "norm", "value"])),
        accumulation=accumulation,
        seed=draw(st.sampled_from([None, 0, 1234])),
        epochs=draw(st.integers(1, 3)),
        one_based_epochs=draw(st.booleans()),
        batches=accumulation * draw(st.integers(1, 2)) + (0 if accumulation > 1 else 1),
        batch_size=draw(st.sampled_from([2, 4])),
        shuffle=draw(st.booleans()),
        running_loss=draw(st.booleans()),
        train_mode_each_epoch=draw(st.booleans()),
        use_model_after=draw(st.booleans()),
        decorations=tuple(
            draw(st.lists(st.sampled_from(["", "", "", "blank", *COMMENTS]), max_size=12))
        ),
    )


# ----------------------------------------------------------------------------- rendering


class _Lines:
    """Indented source lines; `gap()` places the next decoration between two statements."""

    def __init__(self, decorations: tuple[str, ...] = ()):
        self.lines: list[str] = []
        self.decorations = list(decorations)

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text if text else "")

    def gap(self, depth: int) -> None:
        if not self.decorations:
            return
        decoration = self.decorations.pop(0)
        if decoration == "blank":
            self.add(0, "")
        elif decoration:
            self.add(depth, decoration)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _nn(spec: ScriptSpec) -> str:
    return "tnn" if spec.nn_import == "tnn" else "nn"


def _optimizer_class(spec: ScriptSpec) -> str:
    cls = "SGD" if spec.optimizer_kind == "sgd" else "Adam"
    return {
        "module": f"optim.{cls}",
        "from_torch": f"optim.{cls}",
        "class": cls,
        "qualified": f"torch.optim.{cls}",
    }[spec.optim_import]


def _imports(spec: ScriptSpec) -> list[str]:
    lines = ["import torch"]
    lines.append(
        {
            "nn": "import torch.nn as nn",
            "tnn": "import torch.nn as tnn",
            "from": "from torch import nn",
        }[spec.nn_import]
    )
    if spec.loss_kind == "functional":
        lines.append("import torch.nn.functional as F")
    cls = "SGD" if spec.optimizer_kind == "sgd" else "Adam"
    optim_line = {
        "module": "import torch.optim as optim",
        "from_torch": "from torch import optim",
        "class": f"from torch.optim import {cls}",
        "qualified": None,
    }[spec.optim_import]
    if optim_line:
        lines.append(optim_line)
    data_names = ["DataLoader", "TensorDataset"] if spec.batch_kind != "dict" else ["DataLoader"]
    if spec.batch_kind == "dict":
        data_names.append("Dataset")
    lines.append(f"from torch.utils.data import {', '.join(sorted(data_names))}")
    if spec.iteration == "tqdm":
        lines.append("from tqdm import tqdm")
    return lines


def _model_class(spec: ScriptSpec) -> list[str]:
    nn, n = _nn(spec), spec.names
    out_features = 1 if spec.loss_kind == "mse" else CLASSES
    lines = [
        f"class {n.model_class}({nn}.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        f"        self.fc1 = {nn}.Linear({FEATURES}, {HIDDEN})",
    ]
    if spec.dropout:
        lines.append(f"        self.drop = {nn}.Dropout(0.25)")
    lines += [
        f"        self.fc2 = {nn}.Linear({HIDDEN}, {out_features})",
        "",
        "    def forward(self, x):",
        "        x = torch.relu(self.fc1(x))",
    ]
    if spec.dropout:
        lines.append("        x = self.drop(x)")
    lines.append("        return self.fc2(x)")
    return lines


def _dataset_class() -> list[str]:
    return [
        "class PairDataset(Dataset):",
        "    def __init__(self, features, labels):",
        "        self.features = features",
        "        self.labels = labels",
        "",
        "    def __len__(self):",
        "        return len(self.features)",
        "",
        "    def __getitem__(self, index):",
        '        return {"features": self.features[index], "label": self.labels[index]}',
    ]


def _labels(spec: ScriptSpec, count: int) -> str:
    if spec.loss_kind == "mse":
        return f"torch.randn({count}, 1)"
    return f"torch.randint(0, {CLASSES}, ({count},))"


def _setup(spec: ScriptSpec, out: _Lines, depth: int) -> None:
    """Seed, data, model, optimizer, criterion, scheduler: everything before the epoch loop."""
    n = spec.names
    if spec.seed is not None:
        out.add(depth, f"torch.manual_seed({spec.seed})")
    if spec.device == "cpu":
        out.add(depth, 'device = torch.device("cpu")')
    elif spec.device == "auto":
        out.add(depth, 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")')
    size = spec.batches * spec.batch_size
    dataset = "PairDataset" if spec.batch_kind == "dict" else "TensorDataset"
    out.add(depth, f"train_set = {dataset}(torch.randn({size}, {FEATURES}), {_labels(spec, size)})")
    shuffle = ", shuffle=True" if spec.shuffle else ""
    out.add(depth, f"{n.loader} = DataLoader(train_set, batch_size={spec.batch_size}{shuffle})")
    if spec.validation:
        val_size = 2 * spec.batch_size
        out.add(
            depth,
            f"val_set = {dataset}(torch.randn({val_size}, {FEATURES}), {_labels(spec, val_size)})",
        )
        out.add(depth, f"{n.val_loader} = DataLoader(val_set, batch_size={spec.batch_size})")
    out.add(depth, "")
    model = f"{n.model_class}()"
    if spec.device != "none":
        model += ".to(device)"
    out.add(depth, f"{n.model} = {model}")
    if spec.loss_kind == "ce":
        out.add(depth, f"{n.criterion} = {_nn(spec)}.CrossEntropyLoss()")
    elif spec.loss_kind == "mse":
        out.add(depth, f"{n.criterion} = {_nn(spec)}.MSELoss()")
    if spec.optimizer_kind == "sgd":
        kwargs = "lr=0.1, momentum=0.9" if spec.momentum else "lr=0.1"
    else:
        kwargs = "lr=0.01, weight_decay=1e-4" if spec.momentum else "lr=0.01"
    out.add(depth, f"{n.optimizer} = {_optimizer_class(spec)}({n.model}.parameters(), {kwargs})")
    if spec.scheduler != "none":
        sched = "torch.optim.lr_scheduler.StepLR"
        out.add(depth, f"{n.scheduler} = {sched}({n.optimizer}, step_size=1, gamma=0.5)")


def _loss_expr(spec: ScriptSpec, out_name: str, y: str) -> str:
    if spec.loss_kind == "functional":
        return f"F.cross_entropy({out_name}, {y})"
    return f"{spec.names.criterion}({out_name}, {y})"


def _zero_grad(spec: ScriptSpec) -> str:
    n = spec.names
    if spec.zero_grad_call == "model":
        return f"{n.model}.zero_grad()"
    if spec.zero_grad_call == "set_to_none":
        return f"{n.optimizer}.zero_grad(set_to_none=True)"
    return f"{n.optimizer}.zero_grad()"


def _batch_header(spec: ScriptSpec) -> tuple[str, list[str]]:
    """The `for` line of the batch loop and the statements that unpack the batch."""
    n = spec.names
    source = n.loader
    if spec.iteration == "tqdm":
        source = f"tqdm({n.loader}, disable=True)"
    if spec.batch_kind == "tuple":
        target, unpack = f"{n.x}, {n.y}", []
    elif spec.batch_kind == "unpack":
        target, unpack = n.batch, [f"{n.x}, {n.y} = {n.batch}"]
    elif spec.batch_kind == "index":
        target, unpack = n.batch, [f"{n.x}, {n.y} = {n.batch}[0], {n.batch}[1]"]
    else:
        target = n.batch
        unpack = [f'{n.x} = {n.batch}["features"]', f'{n.y} = {n.batch}["label"]']
    if spec.iteration == "enumerate":
        if spec.batch_kind == "tuple":
            target = f"({target})"
        return f"for {n.index}, {target} in enumerate({source}):", unpack
    return f"for {target} in {source}:", unpack


def _step_block(spec: ScriptSpec) -> list[tuple[int, str]]:
    """clip / optimizer step / per-step scheduler / zero_grad after step, at relative depth."""
    n = spec.names
    block: list[tuple[int, str]] = []
    if spec.clipping == "norm":
        block.append((0, f"torch.nn.utils.clip_grad_norm_({n.model}.parameters(), max_norm=1.0)"))
    elif spec.clipping == "value":
        block.append((0, f"{_nn(spec)}.utils.clip_grad_value_({n.model}.parameters(), 0.5)"))
    block.append((0, f"{n.optimizer}.step()"))
    if spec.scheduler == "step":
        block.append((0, f"{n.scheduler}.step()"))
    if spec.zero_grad == "after_step" or spec.accumulation > 1:
        block.append((0, _zero_grad(spec)))
    return block


def _batch_body(spec: ScriptSpec, out: _Lines, depth: int) -> None:
    n = spec.names
    header, unpack = _batch_header(spec)
    out.add(depth, header)
    body = depth + 1
    for line in unpack:
        out.add(body, line)
        out.gap(body)
    if spec.device != "none":
        out.add(body, f"{n.x}, {n.y} = {n.x}.to(device), {n.y}.to(device)")
        out.gap(body)
    if spec.zero_grad == "first" and spec.accumulation == 1:
        out.add(body, _zero_grad(spec))
        out.gap(body)
    out.add(body, f"{n.out} = {n.model}({n.x})")
    out.gap(body)
    loss = _loss_expr(spec, n.out, n.y)
    if spec.accumulation > 1:
        loss = f"{loss} / {spec.accumulation}"
    out.add(body, f"{n.loss} = {loss}")
    out.gap(body)
    if spec.zero_grad == "before_backward" and spec.accumulation == 1:
        out.add(body, _zero_grad(spec))
        out.gap(body)
    out.add(body, f"{n.loss}.backward()")
    out.gap(body)
    if spec.accumulation > 1:
        out.add(body, f"if ({n.index} + 1) % {spec.accumulation} == 0:")
        for rel, line in _step_block(spec):
            out.add(body + 1 + rel, line)
    else:
        for rel, line in _step_block(spec):
            out.add(body + rel, line)
            out.gap(body)
    if spec.running_loss:
        out.add(body, f"running_loss += {n.loss}.item()")


def _validation(spec: ScriptSpec, out: _Lines, depth: int) -> None:
    n = spec.names
    out.add(depth, f"{n.model}.eval()")
    out.add(depth, "val_loss = 0.0")
    out.add(depth, "with torch.no_grad():")
    if spec.batch_kind == "dict":
        out.add(depth + 1, f"for val_batch in {n.val_loader}:")
        vx, vy = 'val_batch["features"]', 'val_batch["label"]'
    else:
        out.add(depth + 1, f"for val_x, val_y in {n.val_loader}:")
        vx, vy = "val_x", "val_y"
    if spec.device != "none":
        out.add(depth + 2, f"val_x, val_y = {vx}.to(device), {vy}.to(device)")
        vx, vy = "val_x", "val_y"
    out.add(depth + 2, f"val_loss += {_loss_expr(spec, f'{n.model}({vx})', vy)}.item()")
    out.add(
        depth, f'print(f"{n.epoch} {{{n.epoch}}}: val_loss={{val_loss / len({n.val_loader}):.4f}}")'
    )
    out.add(depth, f"{n.model}.train()")


def _training(spec: ScriptSpec, out: _Lines, depth: int) -> None:
    n = spec.names
    out.add(depth, f"EPOCHS = {spec.epochs}")
    epochs = "range(1, EPOCHS + 1)" if spec.one_based_epochs else "range(EPOCHS)"
    out.add(depth, f"for {n.epoch} in {epochs}:")
    body = depth + 1
    if spec.train_mode_each_epoch:
        out.add(body, f"{n.model}.train()")
    if spec.running_loss:
        out.add(body, "running_loss = 0.0")
    _batch_body(spec, out, body)
    if spec.running_loss:
        avg = f"running_loss / len({n.loader})"
        out.add(body, f'print(f"{n.epoch} {{{n.epoch}}}: train_loss={{{avg}:.4f}}")')
    if spec.scheduler == "epoch":
        out.add(body, f"{n.scheduler}.step()")
    if spec.validation:
        _validation(spec, out, body)
    if spec.use_model_after:
        out.add(depth, "")
        out.add(depth, f"{n.model}.eval()")
        out.add(depth, "with torch.no_grad():")
        probe = f"torch.ones(2, {FEATURES})"
        if spec.device != "none":
            probe += ".to(device)"
        out.add(depth + 1, f'print("final output", {n.model}({probe}).sum().item())')


def render_script(spec: ScriptSpec) -> str:
    """The source of the training script `spec` describes."""
    out = _Lines(spec.decorations)
    out.add(0, '"""A generated training script (tests/fuzz/script_variants.py)."""')
    for line in _imports(spec):
        out.add(0, line)
    out.add(0, "")
    out.add(0, "")
    for line in _model_class(spec):
        out.add(0, line)
    if spec.batch_kind == "dict":
        out.add(0, "")
        out.add(0, "")
        for line in _dataset_class():
            out.add(0, line)
    out.add(0, "")
    out.add(0, "")
    if spec.layout == "main":
        out.add(0, "def main():")
        _setup(spec, out, 1)
        out.add(1, "")
        _training(spec, out, 1)
        out.add(0, "")
        out.add(0, "")
        out.add(0, 'if __name__ == "__main__":')
        out.add(1, "main()")
    elif spec.layout == "guard":
        out.add(0, 'if __name__ == "__main__":')
        _setup(spec, out, 1)
        out.add(1, "")
        _training(spec, out, 1)
    else:
        _setup(spec, out, 0)
        out.add(0, "")
        _training(spec, out, 0)
    return out.text()
