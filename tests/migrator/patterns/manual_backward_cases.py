"""Cases of patterns/manual_backward.py: one optimizer, backward() twice per batch or with
arguments -> manual optimization, the script's step kept as written."""

CONVERTS = {
    "two_backward_calls_one_optimizer": (
        """
        aux_weight = 0.3
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                loss_main = criterion(out, y)
                loss_aux = out.pow(2).mean()
                loss_main.backward(retain_graph=True)
                (aux_weight * loss_aux).backward()
                optimizer.step()
        """,
        [
            "self.automatic_optimization = False",
            "optimizer = self.optimizers()",
            "optimizer.zero_grad()",
            "self.manual_backward(loss_main, retain_graph=True)\n"
            "        self.manual_backward(self.hparams.aux_weight * loss_aux)\n"
            "        optimizer.step()",
            'self.log("train_loss", loss_main)',
        ],
        [".backward(", "return loss_main", "manual_backward(("],
    ),
    "create_graph_kept": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward(create_graph=True)
                optimizer.step()
        """,
        ["self.manual_backward(loss, create_graph=True)", "optimizer.step()"],
        [".backward(", "return loss"],
    ),
    "inputs_kept_with_the_model_renamed": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward(inputs=[model.weight])
                optimizer.step()
        """,
        ["self.manual_backward(loss, inputs=[self.model.weight])"],
        [".backward("],
    ),
    "clipping_between_them_as_the_optimizer_clips": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                loss = criterion(out, y)
                loss.backward(retain_graph=True)
                out.pow(2).mean().backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
        """,
        [
            "self.manual_backward(out.pow(2).mean())",
            'self.clip_gradients(\n            optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="norm"',
        ],
        ["clip_grad_norm_"],
    ),
    "epoch_scheduler_stepped_where_the_script_steps_it": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.5)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                loss = criterion(out, y)
                loss.backward(retain_graph=True)
                (0.1 * out.pow(2).mean()).backward()
                optimizer.step()
            scheduler.step()
        """,
        ["self.lr_schedulers().step()", "self.manual_backward(0.1 * out.pow(2).mean())"],
        [],
    ),
}

UNCHANGED = {
    "two_backward_calls_under_a_grad_scaler": (
        """
        scaler = torch.amp.GradScaler("cpu")
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                loss = criterion(out, y)
                scaler.scale(loss).backward(retain_graph=True)
                scaler.scale(out.pow(2).mean()).backward()
                scaler.step(optimizer)
                scaler.update()
        """,
        "TL114",
    ),
    "two_backward_calls_under_data_parallel": (
        """
        model = nn.DataParallel(model)
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                loss = criterion(out, y)
                loss.backward(retain_graph=True)
                out.pow(2).mean().backward()
                optimizer.step()
        """,
        "TL114",
    ),
    "every_backward_on_an_expression": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                criterion(out, y).backward(retain_graph=True)
                out.pow(2).mean().backward()
                optimizer.step()
        """,
        "TL114",
    ),
    "second_backward_only_on_some_batches": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                out = model(x)
                loss = criterion(out, y)
                loss.backward(retain_graph=True)
                if i % 2 == 0:
                    out.pow(2).mean().backward()
                optimizer.step()
        """,
        "TL114",
    ),
}
