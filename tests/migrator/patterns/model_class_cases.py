"""Cases of shapes/model_class.py: a class whose methods the loop calls to train (pix2pix's
`model.set_input(data); model.optimize_parameters()`), inlined where the script creates it
(TL188), or refused with a precise code."""

# a pix2pix-style model: the step two method calls deep, a static helper, schedulers stepped
# by a method the epoch calls
_GAN = """
class GanModel:
    def __init__(self, lr):
        self.lr = lr
        self.netG = nn.Linear(4, 4)
        self.netD = nn.Linear(4, 1)
        self.opt_G = torch.optim.SGD(self.netG.parameters(), lr=lr)
        self.opt_D = torch.optim.SGD(self.netD.parameters(), lr=lr)
        self.sched_G = torch.optim.lr_scheduler.StepLR(self.opt_G, 1, gamma=0.5)
        self.sched_D = torch.optim.lr_scheduler.StepLR(self.opt_D, 1, gamma=0.5)

    def set_input(self, batch):
        self.real = batch[0]

    def forward(self):
        self.fake = self.netG(torch.randn_like(self.real))

    def set_requires_grad(self, net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def backward_D(self):
        pred = self.netD(self.fake.detach())
        self.loss_D = pred.mean() - self.netD(self.real).mean()
        self.loss_D.backward()

    def backward_G(self):
        pred = self.netD(self.fake)
        self.loss_G = -pred.mean()
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad(self.netD, True)
        self.opt_D.zero_grad()
        self.backward_D()
        self.opt_D.step()
        self.set_requires_grad(self.netD, False)
        self.opt_G.zero_grad()
        self.backward_G()
        self.opt_G.step()

    def get_losses(self):
        return {"D": self.loss_D.item(), "G": self.loss_G.item()}

    def update_learning_rate(self):
        self.sched_G.step()
        self.sched_D.step()

    def save(self, path):
        torch.save(self.netG.state_dict(), path)
"""

_LOOP = """
gan = GanModel(0.01)
for epoch in range(2):
    for batch in loader:
        gan.set_input(batch)
        gan.optimize_parameters()
        losses = gan.get_losses()
    gan.update_learning_rate()
    print(epoch, losses)
"""

CONVERTS = {
    "pix2pix_style_model": (
        _GAN + _LOOP,
        [
            "self.automatic_optimization = False",
            "opt_G, opt_D = self.optimizers()",
            "self.manual_backward(loss_D)",
            "self.manual_backward(loss_G)",
            "def set_requires_grad(net, flag):",
            "set_requires_grad(self.netD, True)",
            "fake = self.netG(torch.randn_like(real))",
            'losses = {"D": loss_D.item(), "G": loss_G.item()}',
            "self.lr_schedulers()[0].step()",
            "return [opt_G, opt_D], [sched_G, sched_D]",
        ],
        ["class GanModel", "gan.", "def save(", "self.forward()"],
    ),
    # both backward methods bind `pred`: the second one's is renamed
    "locals_of_two_methods_renamed": (
        _GAN + _LOOP,
        ["backward_G_pred = self.netD(fake)", "pred = self.netD(fake.detach())"],
        [],
    ),
    # in main(), with the options object the class keeps under the caller's own name
    "in_main_with_shared_options": (
        """
class Options:
    lr = 0.05
    epochs = 2


class Model:
    def __init__(self, opt):
        self.opt = opt
        self.net = nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=opt.lr)

    def set_input(self, x, y):
        self.inputs, self.targets = x, y

    def backward(self):
        self.loss = criterion(self.net(self.inputs), self.targets)
        self.loss.backward()

    def optimize_parameters(self):
        self.optimizer.zero_grad()
        self.backward()
        self.optimizer.step()


def main():
    opt = Options()
    model = Model(opt)
    for epoch in range(opt.epochs):
        for x, y in loader:
            model.set_input(x, y)
            model.optimize_parameters()
        print(epoch, model.loss.item())


main()
""",
        [
            "def training_step(self, batch, batch_idx):",
            "inputs, targets = x, y",
            "self.loss = criterion(self(inputs), targets)",
            "print(epoch, self.loss.item())",
            "max_epochs=opt.epochs",
        ],
        ["model.set_input", "model.loss", "Model(opt)", "init_opt"],
    ),
}

# timm's NativeScaler: a callable object doing backward, unscale, clipping, the scaler's
# step and update -- the optimizer step sequence written as a call
_CALLABLE_SCALER = """
class NativeScaler:
    def __init__(self, enabled=True):
        self._scaler = torch.amp.GradScaler("cuda", enabled=enabled)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            else:
                norm = None
            self._scaler.step(optimizer)
            self._scaler.update()
        else:
            norm = None
        return norm


model.cuda()
loss_scaler = NativeScaler()
for epoch in range(2):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        optimizer.zero_grad()
        {call}
"""

CONVERTS["callable_loss_scaler"] = (
    _CALLABLE_SCALER.format(
        call="loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())"
    ),
    [
        'precision="16-mixed"',
        "norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        "return loss",
    ],
    ["class NativeScaler", "loss_scaler", "GradScaler", "__call__"],
)

CONVERTS["losses_read_by_name_over_a_constant_list"] = (
    _GAN.replace(
        "        self.lr = lr\n", '        self.lr = lr\n        self.loss_names = ["D", "G"]\n'
    ).replace(
        '        return {"D": self.loss_D.item(), "G": self.loss_G.item()}',
        "        found = {}\n        for name in self.loss_names:\n"
        '            found[name] = getattr(self, "loss_" + name).item()\n        return found',
    )
    + _LOOP,
    ['found[name] = {"D": loss_D, "G": loss_G}[name].item()', "losses = found"],
    ["getattr("],
)

UNCHANGED = {
    # the list of names is changed by a method: which attribute a name reads is not known
    "names_list_changed": (
        _GAN.replace(
            "        self.lr = lr\n", '        self.lr = lr\n        self.loss_names = ["D"]\n'
        ).replace(
            '        return {"D": self.loss_D.item(), "G": self.loss_G.item()}',
            '        self.loss_names.append("G")\n        found = {}\n'
            "        for name in self.loss_names:\n"
            '            found[name] = getattr(self, "loss_" + name).item()\n        return found',
        )
        + _LOOP,
        "TL172",
    ),
    # attributes read by names that are not a constant list the class sets
    "getattr_of_self": (
        _GAN.replace(
            'return {"D": self.loss_D.item(), "G": self.loss_G.item()}',
            'return {name: getattr(self, "loss_" + name).item() for name in ("D", "G")}',
        )
        + _LOOP,
        "TL172",
    ),
    "class_with_a_base": (
        "\nclass BaseModel:\n    pass\n"
        + _GAN.replace("class GanModel:", "class GanModel(BaseModel):")
        + _LOOP,
        "TL189",
    ),
    # MAML: a torch module whose forward steps its own optimizer
    "module_forward_steps_own_optimizer": (
        """
class Meta(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.meta_optim = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def forward(self, x, y):
        loss = criterion(self.net(x), y)
        self.meta_optim.zero_grad()
        loss.backward()
        self.meta_optim.step()
        return loss.item()


maml = Meta()
for epoch in range(2):
    for x, y in loader:
        losses = maml(x, y)
""",
        "TL189",
    ),
    # a method setting attributes runs where it is called: not inside an expression
    "stepping_method_inside_an_expression": (
        _GAN
        + """
gan = GanModel(0.01)
for epoch in range(2):
    for batch in loader:
        gan.set_input(batch)
        print(gan.optimize_parameters())
""",
        "TL173",
    ),
    "method_returning_early": (
        _GAN.replace(
            "    def backward_G(self):\n",
            "    def backward_G(self):\n        if self.lr == 0:\n            return\n",
        )
        + _LOOP,
        "TL173",
    ),
    "decorated_method": (
        _GAN.replace("    def forward(self):", "    @torch.no_grad()\n    def forward(self):")
        + _LOOP,
        "TL173",
    ),
    # the script's own `real` is another object than the class's `self.real`
    "attribute_named_like_a_script_name": (
        "\nreal = torch.zeros(2)\n" + _GAN + _LOOP + "print(real)\n",
        "TL174",
    ),
    "instance_passed_on": (
        _GAN + _LOOP + "\n\ndef report(m):\n    print(m.loss_G)\n\n\nreport(gan)\n",
        "TL172",
    ),
    # every `self.x = ...` runs it: as names, nothing would
    "class_with_setattr": (
        _GAN.replace(
            "    def set_input(self, batch):",
            "    def __setattr__(self, name, value):\n"
            "        object.__setattr__(self, name, value)\n\n"
            "    def set_input(self, batch):",
        )
        + _LOOP,
        "TL189",
    ),
    "created_twice": (
        _GAN + _LOOP + "other = GanModel(0.1)\n",
        "TL171",
    ),
    "script_sets_an_attribute": (
        _GAN + _LOOP.replace("gan = GanModel(0.01)\n", "gan = GanModel(0.01)\ngan.lr = 0.5\n"),
        "TL172",
    ),
    # DeiT's train_one_epoch(..., loss_scaler, ...): the instance handed to a function
    "callable_loss_scaler_passed_to_a_function": (
        _CALLABLE_SCALER.split("model.cuda()")[0]
        + """
def train_one_epoch(model, loader, optimizer, loss_scaler):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss_scaler(loss, optimizer)


model.cuda()
loss_scaler = NativeScaler()
for epoch in range(2):
    train_one_epoch(model, loader, optimizer, loss_scaler)
""",
        "TL172",
    ),
}

# timm's scaler as copied: a constant class attribute nothing reads goes with the class
CONVERTS["callable_loss_scaler_with_an_unread_class_constant"] = (
    _CALLABLE_SCALER.replace(
        "class NativeScaler:\n", 'class NativeScaler:\n    state_dict_key = "amp_scaler"\n\n'
    ).format(call="loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())"),
    ['precision="16-mixed"', "return loss"],
    ["class NativeScaler", "state_dict_key", "__call__"],
)
# read (here by the script, through the instance): the class attribute is state, refused
UNCHANGED["class_constant_read"] = (
    _CALLABLE_SCALER.replace(
        "class NativeScaler:\n", 'class NativeScaler:\n    state_dict_key = "amp_scaler"\n\n'
    ).format(call="loss_scaler(loss, optimizer)\n        print(loss_scaler.state_dict_key)"),
    "TL189",
)
# not a literal: evaluating it when the class is defined may do something
UNCHANGED["class_attribute_computed"] = (
    _CALLABLE_SCALER.replace(
        "class NativeScaler:\n", "class NativeScaler:\n    made_at = print('defined')\n\n"
    ).format(call="loss_scaler(loss, optimizer)"),
    "TL189",
)
