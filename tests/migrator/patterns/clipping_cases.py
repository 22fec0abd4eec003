"""Cases of patterns/clipping.py: clip_grad_norm_ / clip_grad_value_ between backward and step."""

_LOOP = """
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        {clip}
        optimizer.step()
"""

CONVERTS = {
    "norm": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
        ['L.Trainer(accelerator="cpu", devices=1, max_epochs=2, gradient_clip_val=1.0)'],
        ["clip_grad_norm_"],
    ),
    "value": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)"),
        ['gradient_clip_val=0.5,\n    gradient_clip_algorithm="value",'],
        ["clip_grad_value_"],
    ),
    # course notebooks: clip when a limit is set (`grad_clip=None` by default); the Trainer
    # clips nothing for None or 0 either
    "value_if_the_limit_is_set": (
        "grad_clip = 0.1\n"
        + _LOOP.format(
            clip="if grad_clip:\n            nn.utils.clip_grad_value_(model.parameters(), grad_clip)"
        ),
        ["gradient_clip_val=grad_clip", 'gradient_clip_algorithm="value"'],
        ["clip_grad_value_", "if grad_clip"],
    ),
}

UNCHANGED = {
    "norm_type": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, 1.0)"),
        "TL105",
    ),
    "returned_norm_used": (
        _LOOP.format(clip="norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
        "TL105",
    ),
    # `is not None`: a limit of 0 zeroes every gradient here, the Trainer would not clip
    "clip_under_another_condition": (
        "grad_clip = 0.1\n"
        + _LOOP.format(
            clip="if grad_clip is not None:\n"
            "            nn.utils.clip_grad_value_(model.parameters(), grad_clip)"
        ),
        "TL105",
    ),
    "other_parameters": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(criterion.parameters(), 1.0)"),
        "TL105",
    ),
}
