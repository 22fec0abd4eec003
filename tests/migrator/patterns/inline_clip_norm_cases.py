"""Cases of patterns/inline_clip_norm.py: the norm clip_grad_norm_ returns, used inside another
statement between backward() and the optimizer's step."""

_LOOP = """
norms = []
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        {clip}
        optimizer.step()
    print(sum(norms) / len(norms))
"""

CONVERTS = {
    # the norm appended to a list: clipped in configure_gradient_clipping, appended after
    # the step (the norm Lightning's clipping computed)
    "norm_appended_to_a_list": (
        _LOOP.replace(
            "{clip}", "norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5).item())"
        ),
        [
            "def configure_gradient_clipping(\n"
            "        self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None\n"
            "    ):\n"
            "        self.grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        self.norms.append(self.grad_norm.item())",
        ],
        [],
    ),
}

UNCHANGED = {
    # the statement reads the model, which the step changes: it cannot move after it
    "norm_compared_with_a_weight": (
        _LOOP.replace(
            "{clip}",
            "norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5).item() + model.weight.sum().item())",
        ),
        "TL105",
    ),
}
