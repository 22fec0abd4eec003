"""Cases of patterns/accumulation.py: `if (i + 1) % N == 0:` groups of step + zero_grad."""

CONVERTS = {
    # a Kaggle `class CFG` of literals: its settings decide the `if`s inside the group
    "kaggle_cfg_apex_and_batch_scheduler_ifs_in_the_group": (
        """
        class CFG:
            apex = False
            batch_scheduler = True
            gradient_accumulation_steps = 2
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss = loss / CFG.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % CFG.gradient_accumulation_steps == 0:
                    if CFG.apex:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    optimizer.zero_grad()
                    if CFG.batch_scheduler:
                        scheduler.step()
        """,
        [
            "accumulate_grad_batches=CFG.gradient_accumulation_steps",
            '"interval": "step"',
        ],
        ["% CFG", "CFG.apex", "CFG.batch_scheduler"],
    ),
    # k == 1: every batch steps, the group is the plain step
    "kaggle_cfg_group_of_one": (
        """
        class CFG:
            apex = False
            gradient_accumulation_steps = 1
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                if CFG.apex:
                    scaler.scale(loss).backward()
                else:
                    loss.backward()
                if (step + 1) % CFG.gradient_accumulation_steps == 0:
                    if CFG.apex:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    optimizer.zero_grad()
        """,
        ["return loss"],
        ["% CFG", "CFG.apex", "accumulate_grad_batches", "automatic_optimization"],
    ),
    "divided_loss": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "step_loss = self.criterion(self(x), y)\n        loss = step_loss / 2",
            "return step_loss",
            'accelerator="cpu", devices=1, max_epochs=2, accumulate_grad_batches=2',
        ],
        ["% 2 == 0"],
    ),
    # `loss` stays the undivided value the script logs; Lightning divides what it returns
    "backward_on_the_divided_loss": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / 2).backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                print(loss.item())
        """,
        [
            "loss = self.criterion(self(x), y)\n        print(loss.item())",
            "return loss",
            "accumulate_grad_batches=2",
        ],
        ["% 2 == 0", "step_loss", "/ 2"],
    ),
    "backward_on_the_divided_loss_uneven_group_kept_manual": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / 3).backward()
                if (i + 1) % 3 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["self.automatic_optimization = False", "self.manual_backward(loss / 3)"],
        ["accumulate_grad_batches", "return loss"],
    ),
    # the header's loader yields 2 batches: a group of 3 never completes within an epoch, and
    # the script carries its gradients on; Lightning would step at each epoch's end
    "uneven_last_group_kept_manual": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "self.automatic_optimization = False",
            "optimizer = self.optimizers()",
            "self.manual_backward(loss)",
            "if (batch_idx + 1) % 3 == 0:\n            optimizer.step()",
            'L.Trainer(accelerator="cpu", devices=1, max_epochs=2)',
        ],
        ["accumulate_grad_batches", "return loss", "step_loss"],
    ),
    # Lightning zeroes the gradients before each validation pass: the partial group's
    # gradients the script carries into the next epoch would be lost there
    "uneven_last_group_kept_manual_over_validation": (
        """
        val_loader = DataLoader(TensorDataset(torch.randn(4, 4), torch.randint(0, 2, (4,))))
        for epoch in range(2):
            model.train()
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            model.eval()
            with torch.no_grad():
                for x, y in val_loader:
                    val_loss = criterion(model(x), y)
        """,
        [
            "self.automatic_optimization = False",
            "def on_validation_model_zero_grad(self):\n"
            "        # Lightning would zero the gradients here;",
            "        pass\n",
        ],
        ["accumulate_grad_batches"],
    ),
    # `set_to_none=True` is what Lightning's zero_grad does
    "group_zeroes_with_set_to_none": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
        """,
        ["accumulate_grad_batches=2"],
        ["zero_grad"],
    ),
    "steps_at_epoch_end_too": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0 or i + 1 == len(loader):
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            'accelerator="cpu", devices=1, max_epochs=2, accumulate_grad_batches=3',
            "return step_loss",
        ],
        ["automatic_optimization", "len(loader)"],
    ),
    "clipping_each_micro_batch_kept_manual": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "self.manual_backward(loss)\n        self.clip_gradients(\n"
            '            optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="norm"\n'
            "        )\n        if (batch_idx + 1) % 2 == 0:",
        ],
        ["gradient_clip_val=1.0)", "accumulate_grad_batches"],
    ),
    "index_counted_from_one_kept_manual": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader, 1):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["i = batch_idx + 1", "if (i + 1) % 2 == 0:", "self.manual_backward(loss)"],
        ["accumulate_grad_batches"],
    ),
    # 10 samples in batches of 4: drop_last leaves 2 batches (groups of 2 even), else 3
    "drop_last_makes_groups_even": (
        """
        train_loader = DataLoader(TensorDataset(torch.randn(10, 4), torch.randint(0, 2, (10,))), batch_size=4, drop_last=True)
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["accumulate_grad_batches=2"],
        ["automatic_optimization"],
    ),
    "last_batch_kept_makes_groups_uneven": (
        """
        train_loader = DataLoader(TensorDataset(torch.randn(10, 4), torch.randint(0, 2, (10,))), batch_size=4)
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["self.automatic_optimization = False"],
        ["accumulate_grad_batches"],
    ),
    # clipping once per group, before its step, and a scheduler stepped with the optimizer:
    # what gradient_clip_val and interval "step" do under accumulate_grad_batches
    "clipping_and_scheduler_inside_the_group": (
        """
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 / (s + 1))
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
        """,
        [
            "gradient_clip_val=1.0",
            "accumulate_grad_batches=2",
            '"interval": "step"',
            "return step_loss",
        ],
        ["automatic_optimization", "clip_grad_norm_", "% 2 == 0"],
    ),
    # 20 samples split 16 / 4: 16 in batches of 4 make 4 batches, groups of 2 even
    "sliced_tensors_make_groups_even": (
        """
        data = torch.randn(20, 4)
        labels = torch.randint(0, 2, (20,))
        train_loader = DataLoader(TensorDataset(data[:16], labels[:16]), batch_size=4)
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["accumulate_grad_batches=2"],
        ["automatic_optimization"],
    ),
    "sliced_tensors_make_groups_uneven": (  # data[4:] holds 16 of 22: 4 batches of 4, and 2
        """
        data = torch.randn(22, 4)
        labels = torch.randint(0, 2, (22,))
        train_loader = DataLoader(TensorDataset(data[4:], labels[4:]), batch_size=4)
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["self.automatic_optimization = False"],
        ["accumulate_grad_batches"],
    ),
    # research code's config dict, only ever read by key: its value is as certain as a literal
    "group_size_from_a_config_dict": (
        """
        cfg = {"accum_steps": 2, "lr": 0.1}
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / cfg["accum_steps"]
                loss.backward()
                if (i + 1) % cfg["accum_steps"] == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ['accumulate_grad_batches=cfg["accum_steps"]'],
        ["automatic_optimization"],
    ),
    "group_size_from_a_config_dict_the_script_changes": (  # could be uneven: kept manual
        """
        cfg = {"accum_steps": 2, "lr": 0.1}
        cfg["accum_steps"] = 3
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / cfg["accum_steps"]
                loss.backward()
                if (i + 1) % cfg["accum_steps"] == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ["self.automatic_optimization = False"],
        ["accumulate_grad_batches"],
    ),
    # code after the group's calls (a counter, a log line reading the new learning rate and
    # the script's own undivided loss) runs after Lightning's optimizer and scheduler steps:
    # on_train_batch_end, under the group's condition
    "group_tail_after_the_step": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
        updates = 0
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / 2).backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
                    updates += 1
                    print(updates, loss.item(), scheduler.get_last_lr()[0])
        """,
        [
            "self.loss = self.criterion(self(x), y)",
            "def on_train_batch_end(self, outputs, batch, batch_idx):\n"
            "        if (batch_idx + 1) % 2 == 0:\n"
            "            self.updates += 1\n"
            "            self.print(\n"
            "                self.updates, self.loss.item(), self.lr_schedulers().get_last_lr()[0]",
            "accumulate_grad_batches=2",
            '"interval": "step"',
        ],
        ["outputs['loss']", "automatic_optimization"],
    ),
    # the group's clipping keeps its norm: the script's statement in configure_gradient_clipping
    "group_clipping_norm_read_in_the_tail": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0 or i + 1 == len(loader):
                    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    optimizer.zero_grad()
                    print(f"norm {norm:.3f}")
        """,
        [
            "def configure_gradient_clipping(\n"
            "        self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None\n"
            "    ):\n"
            "        self.norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
            "if (batch_idx + 1) % 2 == 0 or batch_idx + 1 == len(\n"
            "            self.trainer.train_dataloader\n"
            "        ):\n"
            '            self.print(f"norm {self.norm:.3f}")',
            "accumulate_grad_batches=2",
        ],
        ["gradient_clip_val=1.0", "automatic_optimization"],
    ),
    # an accumulation Lightning would not reproduce keeps the whole group in training_step
    "group_tail_kept_with_the_manual_group": (
        """
        updates = 0
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    updates += 1
        """,
        [
            "self.automatic_optimization = False",
            "optimizer.zero_grad()\n            self.updates += 1",
        ],
        ["on_train_batch_end", "accumulate_grad_batches"],
    ),
    "clipping_in_a_group_that_leaves_a_partial_one": (  # 2 batches per epoch, groups of 3
        """
        accumulation_steps = 3
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / accumulation_steps
                loss.backward()
                if (step + 1) % accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [
            "self.automatic_optimization = False",
            "torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)",
        ],
        ["gradient_clip_val", "self.clip_gradients", "accumulate_grad_batches"],
    ),
    "clipping_and_scheduler_in_a_group_of_an_argument": (  # the Hugging Face examples
        """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
        args = parser.parse_args()
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.9**step)
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                if args.gradient_accumulation_steps > 1:
                    loss = loss / args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    scheduler.step()
                    model.zero_grad()
        """,
        ["self.lr_schedulers().step()", "self.manual_backward(loss)"],
        ["gradient_clip_val", "accumulate_grad_batches"],
    ),
    # the GradScaler's form of the group's step: Lightning's precision plugin scales the
    # divided loss, unscales before clipping, steps and updates the scaler on the same groups
    "scaler_group_unscales_clips_steps_and_updates": (
        """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        use_amp = device.type == "cuda"
        model.to(device)
        scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 / (s + 1))
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                x, y = x.to(device), y.to(device)
                with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):
                    loss = criterion(model(x), y)
                scaler.scale(loss / 3).backward()
                if (i + 1) % 3 == 0 or (i + 1) == len(loader):
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad(set_to_none=True)
                    scheduler.step()
        """,
        [
            "gradient_clip_val=1.0",
            "accumulate_grad_batches=3",
            'precision="16-mixed" if use_amp else "32-true"',
            '"interval": "step"',
            "return loss",
        ],
        ["automatic_optimization", "scaler", "% 3 == 0", "clip_grad_norm_"],
    ),
}

UNCHANGED = {
    # the script stores into the field the test reads: not known before training
    "kaggle_cfg_field_the_script_sets": (
        """
        class CFG:
            apex = False
            gradient_accumulation_steps = 2
        CFG.apex = torch.cuda.is_available()
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / CFG.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % CFG.gradient_accumulation_steps == 0:
                    if CFG.apex:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    "clipping_in_a_group_with_a_scheduler_stepped_per_epoch": (
        """
        accumulation_steps = 3
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        for epoch in range(2):
            for step, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / accumulation_steps
                loss.backward()
                if (step + 1) % accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    optimizer.zero_grad()
            scheduler.step()
        """,
        "TL114",
    ),
    "clipping_other_parameters_in_an_uneven_group": (
        """
        params = list(model.parameters())
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0:
                    torch.nn.utils.clip_grad_norm_(params, 1.0)
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    # the log line would read the rate after Lightning's scheduler step, not before it
    "code_between_the_group_calls": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    print(scheduler.get_last_lr())
                    scheduler.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    "break_in_the_group_tail": (
        """
        updates = 0
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    updates += 1
                    if updates == 3:
                        break
        """,
        "TL114",
    ),
    "backward_on_the_loss_divided_by_another_number": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / 4).backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    "backward_on_a_divided_loss_without_accumulation": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                (loss / 2).backward()
                optimizer.step()
        """,
        "TL114",
    ),
    "clipping_after_the_step_inside_the_group": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.zero_grad()
        """,
        "TL105",
    ),
    "scheduler_before_the_step_inside_the_group": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    scheduler.step()
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL105",
    ),
    "loss_not_divided": (
        """
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % 2 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
    "conditional_backward": (
        """
        for epoch in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                if loss.item() > 0:
                    loss.backward()
                    optimizer.step()
        """,
        "TL114",
    ),
    "uneven_last_group_with_a_scheduler": (
        """
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / 3
                loss.backward()
                if (i + 1) % 3 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            scheduler.step()
        """,
        "TL114",
    ),
    # 2 batches per epoch in groups of 3: the script carries the partial group's scaled
    # gradients into the next epoch, Lightning's accumulation would step on it
    "scaler_group_leaving_a_partial_group": (
        """
        model.cuda()
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(2):
            for i, (x, y) in enumerate(loader):
                x, y = x.cuda(), y.cuda()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = criterion(model(x), y) / 3
                scaler.scale(loss).backward()
                if (i + 1) % 3 == 0:
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
        """,
        "TL114",
    ),
}
