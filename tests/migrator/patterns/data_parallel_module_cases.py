"""Cases of patterns/data_parallel_module.py: the DataParallel wrapper's `.module` once the
wrap is removed (the Trainer's strategy wraps the model)."""

_WRAPPED = """
import os

use_cuda = torch.cuda.is_available()
if use_cuda:
    model.cuda()
    model = torch.nn.DataParallel(model)


for epoch in range(2):
    for x, y in loader:
        if use_cuda:
            x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    {save}
{after}"""

CONVERTS = {
    # kuangliu's CIFAR checkpoint: on CUDA `self.model.module` raised AttributeError
    "flag_chosen_module": (
        _WRAPPED.format(save="torch.save(model.module if use_cuda else model, 'net.pt')", after=""),
        ['torch.save(self.model, "net.pt")'],
        [".module"],
    ),
    "module_state_dict": (
        _WRAPPED.format(save="torch.save(model.module.state_dict(), 'net.pt')", after=""),
        ['torch.save(self.model.state_dict(), "net.pt")'],
        [".module"],
    ),
    "hasattr_chosen_module": (
        _WRAPPED.format(
            save="to_save = model.module if hasattr(model, 'module') else model\n"
            "    torch.save(to_save.state_dict(), 'net.pt')",
            after="",
        ),
        ["to_save = self.model\n"],
        [".module"],
    ),
    "isinstance_chosen_module": (
        _WRAPPED.format(
            save="to_save = model.module if isinstance(model, torch.nn.DataParallel) else model\n"
            "    torch.save(to_save.state_dict(), 'net.pt')",
            after="",
        ),
        ["to_save = self.model\n"],
        [".module"],
    ),
    "getattr_module": (
        _WRAPPED.format(
            save="torch.save(getattr(model, 'module').state_dict(), 'net.pt')", after=""
        ),
        ['torch.save(self.model.state_dict(), "net.pt")'],
        ["getattr("],
    ),
    # after the loop under a test asking the object itself: the bare model takes the other
    # branch, as the script run without the wrap did (the corpus' `dataparallel_module_save`)
    "isinstance_guarded_module_after_the_loop": (
        _WRAPPED.format(
            save="pass",
            after="if isinstance(model, (nn.DataParallel, nn.parallel.DistributedDataParallel)):\n"
            "    torch.save(model.module.state_dict(), 'net.pt')\n"
            "else:\n"
            "    torch.save(model.state_dict(), 'net.pt')\n",
        ),
        ["if isinstance(model, (nn.DataParallel", "torch.save(model.module.state_dict()"],
        [],
    ),
    "hasattr_chosen_module_after_the_loop": (
        _WRAPPED.format(
            save="pass",
            after="state = (model.module if hasattr(model, 'module') else model).state_dict()\n",
        ),
        ["state = (model.module if hasattr(model, 'module') else model).state_dict()"],
        [],
    ),
}

UNCHANGED = {
    # a wrapper of a model the optimizer does not train stays: its `.module` is not the model
    "module_of_a_kept_wrapper": (
        "teacher = torch.nn.DataParallel(nn.Linear(4, 2))\n"
        "frozen = nn.Linear(4, 2)\n"
        "teacher = torch.nn.DataParallel(frozen)\n"
        "for epoch in range(2):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    print(teacher.module.weight.sum().item())\n",
        "TL330",
    ),
    # a function of the script called per epoch and kept as one: it reads the bare model
    "module_in_a_kept_function": (
        _WRAPPED.format(save="save(epoch)", after="").replace(
            "use_cuda = torch",
            "def save(epoch):\n    torch.save(model.module, 'n.pt')\n\n\nuse_cuda = torch",
        ),
        "TL330",
    ),
    # after the loop, where the epoch's rewriting does not reach
    "module_after_the_loop": (
        _WRAPPED.format(save="pass", after="torch.save(model.module.state_dict(), 'net.pt')\n"),
        "TL330",
    ),
    # a test that does not ask for the wrapper leaves the read reachable on the bare model
    "module_after_the_loop_under_an_unrelated_isinstance": (
        _WRAPPED.format(
            save="pass",
            after="if isinstance(model, nn.Module):\n"
            "    torch.save(model.module.state_dict(), 'net.pt')\n",
        ),
        "TL330",
    ),
}
