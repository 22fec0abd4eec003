"""Cases of patterns/hand_update.py: parameters updated by hand -> manual optimization with no
optimizer; what it cannot keep faithfully is refused (TL127), plain tensors too (TL128)."""

_DDP_IMPORTS = """
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
"""

CONVERTS = {
    "sgd_written_with_data_add": (
        """
        lr = 0.1
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
        """,
        [
            "self.automatic_optimization = False",
            "self.model.zero_grad()\n        loss = self.criterion(self(x), y)\n"
            "        self.manual_backward(loss)\n"
            "        for p in self.model.parameters():\n"
            "            p.data.add_(p.grad, alpha=-self.hparams.lr)\n"
            '        self.log("train_loss", loss)',
            "def configure_optimizers(self):\n"
            "        # the parameters are updated by hand in training_step\n"
            "        return None",
        ],
        ["loss.backward()", "self.optimizers()", "return loss", "torch.optim.SGD(self"],
    ),
    "no_grad_update_then_grad_set_to_none": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    for param in model.parameters():
                        param -= 0.05 * param.grad
                        param.grad = None
        """,
        [
            "with torch.no_grad():\n            for param in self.model.parameters():\n"
            "                param -= 0.05 * param.grad\n                param.grad = None",
        ],
        [".backward()"],
    ),
    "gradient_zeroed_in_place_after_the_update": (
        """
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p.sub_(0.05 * p.grad)
                        p.grad.zero_()
        """,
        ["p.sub_(0.05 * p.grad)\n                p.grad.zero_()"],
        [],
    ),
    "weight_decay_added_by_hand": (
        """
        lr, wd = 0.1, 1e-4
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= lr * (p.grad + wd * p)
                        p.grad = None
        """,
        ["p -= self.lr * (p.grad + self.wd * p)\n                p.grad = None"],
        [],
    ),
    "clipping_kept_as_the_script_calls_it": (
        """
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
        """,
        [
            "self.manual_backward(loss)\n"
            "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)\n"
            "        for p in self.model.parameters():",
        ],
        ["gradient_clip_val", "self.clip_gradients"],
    ),
    "learning_rate_decayed_at_the_epoch_end_is_state": (
        """
        lr = 0.1
        for epoch in range(3):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
            if epoch == 1:
                lr /= 4.0
        """,
        [
            "p.data.add_(p.grad, alpha=-self.lr)",
            "def on_train_epoch_end(self):\n        epoch = self.current_epoch\n"
            "        if epoch == 1:\n            self.lr /= 4.0",
            "self.lr = lr",
        ],
        ["self.hparams.lr"],
    ),
    "full_batch_step_loop": (
        """
        x = torch.randn(8, 4)
        y = torch.randint(0, 2, (8,))
        learning_rate = 1e-3
        for t in range(20):
            loss = criterion(model(x), y)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for param in model.parameters():
                    param -= learning_rate * param.grad
        """,
        [
            "iterations = DataLoader(range(20), batch_size=None, generator=torch.Generator())",
            "max_epochs=1",
            "param -= self.hparams.learning_rate * param.grad",
            "self.manual_backward(loss)",
        ],
        [],
    ),
    "update_every_n_batches_kept_as_written": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    with torch.no_grad():
                        for p in model.parameters():
                            p -= 0.1 * p.grad
                            p.grad = None
        """,
        [
            "self.manual_backward(loss)\n        if (batch_idx + 1) % 2 == 0:\n"
            "            with torch.no_grad():"
        ],
        ["accumulate_grad_batches"],
    ),
    "device_moves_go_as_in_any_step": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
        """,
        [
            "x, y = batch\n        self.model.zero_grad()",
            'accelerator="cuda" if torch.cuda.is_available() else "cpu"',
        ],
        [".to(device)", "self.device"],
    ),
    "unused_optimizer_left_in_the_script": (
        """
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
        """,
        ["optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\ncriterion"],
        ["self.optimizers()"],
    ),
}

UNCHANGED = {
    "plain_tensors_updated_by_hand": (
        """
        a = torch.randn((), requires_grad=True)
        b = torch.randn((), requires_grad=True)
        x = torch.linspace(-1, 1, 20)
        for t in range(10):
            loss = (a + b * x - x.sin()).pow(2).sum()
            loss.backward()
            with torch.no_grad():
                a -= 0.01 * a.grad
                b -= 0.01 * b.grad
                a.grad = None
                b.grad = None
        """,
        "TL128",
    ),
    "nn_tutorial_weights_and_bias": (
        """
        import math

        weights = torch.randn(4, 2) / math.sqrt(4)
        weights.requires_grad_()
        bias = torch.zeros(2, requires_grad=True)


        def linear_model(xb):
            return xb @ weights + bias


        for epoch in range(2):
            for xb, yb in loader:
                loss = criterion(linear_model(xb), yb)
                loss.backward()
                with torch.no_grad():
                    weights -= weights.grad * 0.1
                    bias -= bias.grad * 0.1
                    weights.grad.zero_()
                    bias.grad.zero_()
        """,
        "TL128",
    ),
    "a_tensor_updated_beside_the_model": (
        """
        temperature = torch.ones(1, requires_grad=True)
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x) / temperature, y)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= 0.1 * p.grad
                    temperature -= 0.1 * temperature.grad
                    temperature.grad = None
        """,
        "TL128",
    ),
    "momentum_buffers_built_before_the_loop": (
        """
        velocity = {p: torch.zeros_like(p) for p in model.parameters()}
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        velocity[p].mul_(0.9).add_(p.grad)
                        p -= 0.1 * velocity[p]
        """,
        "TL127",
    ),
    "grad_scaler_with_a_hand_update": (
        """
        scaler = torch.amp.GradScaler()
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= 0.1 * p.grad
        """,
        "TL127",
    ),
    "autocast_with_a_hand_update": (
        """
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
        """,
        "TL127",
    ),
    "data_parallel_with_a_hand_update": (
        """
        model = nn.DataParallel(model)
        for epoch in range(2):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
        """,
        "TL127",
    ),
    "ddp_worker_with_a_hand_update": (
        _DDP_IMPORTS + """

def train(rank, world_size):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    net = nn.Linear(4, 2)
    ddp_net = DDP(net)
    for epoch in range(2):
        for x, y in loader:
            ddp_net.zero_grad()
            loss = criterion(ddp_net(x), y)
            loss.backward()
            for p in ddp_net.parameters():
                p.data.add_(p.grad, alpha=-0.1)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(train, args=(2,), nprocs=2)
""",
        "TL127",
    ),
    "two_models_updated_by_hand": (
        """
        head = nn.Linear(2, 2)
        for epoch in range(2):
            for x, y in loader:
                loss = criterion(head(model(x)), y)
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= 0.1 * p.grad
                    for p in head.parameters():
                        p -= 0.1 * p.grad
        """,
        "TL127",
    ),
    # the update is in a function the step calls (d2l's `updater(batch_size)` -> `sgd(...)`):
    # named, not followed
    "update_inside_a_called_function": (
        """
        def sgd(params, lr, batch_size):
            with torch.no_grad():
                for param in params:
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()


        def updater(batch_size):
            return sgd(list(model.parameters()), 0.1, batch_size)


        for epoch in range(2):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.sum().backward()
                updater(x.shape[0])
        """,
        "TL127",
    ),
}

# a `break` last in the step ends the epoch where the script's does (early_break.py's flag), the
# counter carried as module state: every later epoch ends after its first batch, as in the script
CONVERTS["step_budget_break_in_the_step_ends_the_epoch"] = (
    """
        step = 0
        for epoch in range(5):
            for x, y in loader:
                model.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-0.1)
                step += 1
                if step >= 3:
                    break
        """,
    ["self.step += 1\n        if self.step >= 3:\n            self.stop_epoch = True",
     "if self.stop_epoch:\n            return -1"],
    ["break", "max_steps"],
)
