"""Cases of patterns/device_scope.py: a device the function holding the loop reads from the
module (a global, or a parameter its caller passes a global for) is a device name like one
bound beside the loop; a fixed accelerator beside a kept move to a device not read is refused."""

_TRAIN = """
        def train(net, opt, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
"""

CONVERTS = {
    "global_bound_before_the_function": (
        """
        device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

        """
        + _TRAIN
        + """

        train(model, optimizer, 2)
        """,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu"', "devices=1"],
        ["x.to(device)"],
    ),
    "global_bound_under_name_main_after_the_function": (
        _TRAIN + """

        if __name__ == "__main__":
            use_cuda = torch.cuda.is_available()
            device = torch.device("cuda" if use_cuda else "cpu")
            train(model, optimizer, 2)
        """,
        ['accelerator="cuda" if use_cuda else "cpu"'],
        ["x.to(device)"],
    ),
    "global_if_else_idiom": (
        """
        if torch.cuda.is_available():
            device = "cuda"
        else:
            device = "cpu"

        """
        + _TRAIN
        + """

        train(model, optimizer, 2)
        """,
        ['accelerator="cuda" if torch.cuda.is_available() else "cpu"'],
        ["x.to(device)"],
    ),
    "condition_shadowed_in_the_function": (
        """
        use_cuda = torch.cuda.is_available()
        device = torch.device("cuda" if use_cuda else "cpu")


        def train(net, opt, epochs, use_cuda=False):
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        train(model, optimizer, 2)
        """,
        ["accelerator=torch.device(device).type"],
        ["x.to(device)", 'accelerator="cuda" if use_cuda'],
    ),
    "parameter_given_the_global_by_a_calling_function": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def fit(net, opt, dev, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    x, y = x.to(dev), y.to(dev)
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()


        def main():
            net = nn.Linear(4, 2).to(device)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            fit(net, opt, device, 2)


        main()
        """,
        ["accelerator=torch.device(dev).type, devices=1"],
        ["x.to(dev)"],
    ),
}

UNCHANGED = {
    "global_device_from_a_helper": (
        """
        device = pick_device()

        """
        + _TRAIN
        + """

        train(model, optimizer, 2)
        """,
        "TL142",
    ),
    "global_rebound_by_another_function": (
        """
        device = torch.device("cpu")


        def setup():
            global device
            device = pick_device()

        """
        + _TRAIN
        + """

        setup()
        train(model, optimizer, 2)
        """,
        "TL142",
    ),
    # an item of a config's list is not a field naming a device (patterns/config_device.py)
    "move_to_an_item_of_a_config_list": (
        """
        dev = config.devices[0]
        for epoch in range(2):
            for x, y in loader:
                x, y = x.to(dev), y.to(dev)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        """,
        "TL142",
    ),
}

# a config's device field: the Trainer reads the device the script bound from it at run time
CONVERTS["move_to_a_config_device"] = (
    """
    dev = config.device
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """,
    [
        "dev = config.device",
        "accelerator=torch.device(dev).type",
        "devices=[torch.device(dev).index] if torch.device(dev).index else 1",
    ],
    [".to(dev)"],
)
