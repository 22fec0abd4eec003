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
    "other_parameters": (
        _LOOP.format(clip="torch.nn.utils.clip_grad_norm_(criterion.parameters(), 1.0)"),
        "TL105",
    ),
}
