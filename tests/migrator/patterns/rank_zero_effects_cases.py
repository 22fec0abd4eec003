"""Cases of patterns/rank_zero_effects.py: in a DataParallel -> DDP conversion, statements that
only print or write files run on rank zero (in the hooks and after fit); state stays on every
process."""

_WRAP = """
        if torch.cuda.device_count() > 1:
            model = nn.DataParallel(model)
        model = model.cuda()
        history = []
"""

CONVERTS = {
    "epoch_print_and_save_once_state_everywhere": (
        _WRAP
        + """
        for epoch in range(2):
            print("epoch", epoch)
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            history.append(loss.item())
            torch.save(model.state_dict(), "last.pth")
        print("done", history)
        """,
        [
            'if self.trainer.is_global_zero:\n            print("epoch", epoch)',
            "self.history.append(self.loss.item())\n"
            "        if self.trainer.is_global_zero:\n"
            '            torch.save(self.model.state_dict(), "last.pth")',
            'if trainer.is_global_zero:\n    print("done", history)',
        ],
        [],
    ),
    # values made into a tensor or an array only to be saved: still output only (heldout22)
    "history_saved_as_a_tensor_once": (
        "\n        import numpy as np"
        + _WRAP
        + """
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            history.append(loss.item())
        torch.save(torch.tensor(history), "history.pt")
        np.save("history.npy", np.asarray(history))
        """,
        [
            'if trainer.is_global_zero:\n    torch.save(torch.tensor(history), "history.pt")',
            'if trainer.is_global_zero:\n    np.save("history.npy", np.asarray(history))',
        ],
        [],
    ),
    # a print iterating a loader draws from torch's generator (a DataLoader iterator's seed):
    # every process draws it, as every process of the script did
    "print_iterating_a_loader_stays_on_every_process": (
        _WRAP
        + """
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print("batches", len(list(loader)))
        """,
        [
            "def on_train_epoch_end(self):\n"
            '        print("batches", len(list(self.trainer.train_dataloader)))'
        ],
        ["is_global_zero"],
    ),
    "one_device_script_unguarded": (
        """
        model = model.cuda()
        for epoch in range(2):
            for x, y in loader:
                x, y = x.cuda(), y.cuda()
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            print("epoch", epoch)
        """,
        ['print("epoch", epoch)'],
        ["is_global_zero"],
    ),
}
