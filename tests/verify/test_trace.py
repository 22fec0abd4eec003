import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from torchlift.verify.trace import launcher_args, run_traced


def _script(tmp_path, body):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_every_backward_value_is_recorded_in_order(tmp_path):
    script = _script(
        tmp_path,
        """
        import torch
        w = torch.ones(3, requires_grad=True)
        for i in range(4):
            (w * i).sum().backward()
        print("finished")
        """,
    )
    run = run_traced(script)
    assert run.returncode == 0, run.stderr
    assert run.losses == [0.0, 3.0, 6.0, 9.0]
    assert "finished" in run.stdout


def test_trace_stops_the_script_after_the_requested_steps(tmp_path):
    script = _script(
        tmp_path,
        """
        import torch
        w = torch.ones(2, requires_grad=True)
        for i in range(100):
            (w * i).sum().backward()
        print("not reached")
        """,
    )
    run = run_traced(script, steps=3)
    assert run.returncode == 0
    assert run.losses == [0.0, 2.0, 4.0]
    assert "not reached" not in run.stdout


def test_script_without_torch_runs_untouched(tmp_path):
    script = _script(tmp_path, "print('hello')\n")
    run = run_traced(script)
    assert run.returncode == 0 and run.stdout == "hello\n" and run.losses == []


def test_final_parameters_after_exactly_the_requested_steps_and_seeded_torch(tmp_path):
    # Stopping happens when backward is called for the (steps+1)-th time, so the parameters
    # recorded are those after `steps` full optimizer steps; torch.autograd.backward counts
    # once; seeding makes an unseeded script repeat itself.
    script = _script(
        tmp_path,
        """
        import sys
        import torch
        w = torch.nn.Parameter(torch.rand(2))
        frozen = torch.ones(2)
        opt = torch.optim.SGD([w], lr=0.5)
        for i in range(int(sys.argv[1])):
            opt.zero_grad()
            loss = (w * frozen).sum()
            if i % 2:
                torch.autograd.backward(loss)
            else:
                loss.backward()
            opt.step()
        """,
    )
    stopped = run_traced(script, ["10"], steps=3, params=True, seed=7)
    finished = run_traced(script, ["3"], params=True, seed=7)
    assert stopped.stopped and not finished.stopped and finished.imported_torch
    assert len(stopped.losses) == 3 and stopped.losses == finished.losses
    assert len(stopped.params) == 1  # only the trained tensor, not `frozen`
    assert stopped.params[0].tolist() == finished.params[0].tolist()
    # 3 steps of lr 0.5 on a gradient of ones: each element moved by -1.5.
    assert abs(finished.params[0].sum().item() - (finished.losses[0] - 3.0)) < 1e-5
    other_seed = run_traced(script, ["3"], seed=8)
    assert other_seed.losses != finished.losses


def test_each_rank_records_its_own_losses(tmp_path):
    script = _script(
        tmp_path,
        """
        import torch
        (torch.ones(1, requires_grad=True) * 2).sum().backward()
        """,
    )
    import os

    env = dict(os.environ, RANK="1", LOCAL_RANK="1")
    run = run_traced(script, env=env, params=True)
    # rank 0's trace stays empty; rank 1's losses are its own, and only rank 0 dumps tensors
    assert run.returncode == 0 and run.losses == [] and not run.imported_torch
    assert run.rank_losses == {1: [2.0]} and run.params is None


def test_buffers_of_trained_modules_are_recorded_even_from_a_finished_function(tmp_path):
    # A BatchNorm's running statistics change its results as its weights do, though autograd
    # never reaches them: a run that only differs there (an extra forward in train mode after
    # training, inside a function whose model is gone when the run ends) must not look equal.
    script = _script(
        tmp_path,
        """
        import sys
        import torch
        def main():
            torch.manual_seed(0)
            model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for _ in range(2):
                opt.zero_grad()
                model(torch.randn(8, 3)).pow(2).mean().backward()
                opt.step()
            if sys.argv[1] == "peek":
                with torch.no_grad():
                    model(torch.randn(8, 3))  # train mode: updates the running statistics
        main()
        """,
    )
    plain = run_traced(script, ["plain"], params=True, seed=1)
    peek = run_traced(script, ["peek"], params=True, seed=1)
    assert plain.returncode == 0 and peek.returncode == 0, plain.stderr + peek.stderr
    assert plain.losses == peek.losses
    # Linear weight, bias, BatchNorm weight, bias; then running mean, var, batches tracked
    assert len(plain.params) == 7 and len(peek.params) == 7
    assert [t.tolist() for t in plain.params[:4]] == [t.tolist() for t in peek.params[:4]]
    assert plain.params[4].tolist() != peek.params[4].tolist()


def test_a_module_overriding_parameters_without_recurse_is_traced(tmp_path):
    # MAML-style learners define `parameters(self)` returning their own list: the trace finds
    # each parameter's owner without calling that method with arguments it does not take
    script = _script(
        tmp_path,
        """
        import torch

        class Learner(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.ones(3))
                self.register_buffer("count", torch.zeros(1))

            def forward(self, x):
                self.count += 1
                return (self.w * x).sum()

            def parameters(self):
                return [self.w]

        learner = Learner()
        opt = torch.optim.SGD(learner.parameters(), lr=0.1)
        for i in range(3):
            opt.zero_grad()
            learner(torch.full((3,), float(i))).backward()
            opt.step()
        print("finished")
        """,
    )
    run = run_traced(script, params=True, seed=1)
    assert run.returncode == 0, run.stderr
    assert "finished" in run.stdout
    weight, count = run.params  # the parameter, then its owner's buffer
    assert weight.tolist() == pytest.approx([0.7] * 3) and count.tolist() == [3.0]


def test_a_dead_weak_proxy_does_not_stop_the_trace(tmp_path):
    # torch.compile leaves weakref proxies whose referents are gone among the garbage
    # collector's objects; asking one its type raises ReferenceError
    script = _script(
        tmp_path,
        """
        import weakref
        import torch

        class Holder:
            pass

        held = Holder()
        proxies = [weakref.proxy(held)]
        del held
        model = torch.nn.Linear(2, 1)
        model(torch.ones(1, 2)).sum().backward()
        print("finished")
        """,
    )
    run = run_traced(script, params=True, seed=1)
    assert run.returncode == 0, run.stderr
    assert "finished" in run.stdout and len(run.params) == 2


def test_standalone_launch_reaches_its_store_on_loopback():
    # torchrun hands its workers the machine's FQDN unless told the local address
    assert launcher_args("torchrun --standalone --nproc_per_node=2") == [
        "-m",
        "torch.distributed.run",
        "--local-addr=127.0.0.1",
        "--standalone",
        "--nproc_per_node=2",
    ]
    # a user's own address, and a multi-node rendezvous, are left as written
    assert "127.0.0.1" not in launcher_args("torchrun --standalone --local_addr=10.0.0.2")
    assert "--local-addr=127.0.0.1" not in launcher_args("torchrun --nnodes=2 --rdzv-id=1")


@pytest.mark.skipif(
    shutil.which("unshare") is None or os.geteuid() != 0, reason="needs root and unshare"
)
def test_standalone_launch_runs_where_the_hostname_does_not_resolve(tmp_path):
    """CI hosts whose own name has no address: workers must not dial that name."""
    script = _script(
        tmp_path,
        """
        import torch, torch.distributed as dist
        dist.init_process_group("gloo")
        t = torch.ones(1, requires_grad=True)
        (t * (dist.get_rank() + 1)).sum().backward()
        dist.destroy_process_group()
        """,
    )
    launch = " ".join(launcher_args("torchrun --standalone --nproc_per_node=2"))
    command = f"hostname no-such-host-torchlift && exec {sys.executable} {launch} {script}"
    done = subprocess.run(
        ["unshare", "--uts", "sh", "-c", command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_sitecustomize_the_trace_shadows_still_runs(tmp_path):
    # Python imports only the first sitecustomize on the path, the trace's: the environment's
    # own must run too, after it (here one given on PYTHONPATH, setting a value the script reads).
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import builtins\nbuiltins.SITE_RAN = 'yes'\n")
    script = _script(
        tmp_path,
        """
        import torch
        w = torch.ones(2, requires_grad=True)
        w.sum().backward()
        print(SITE_RAN)
        """,
    )
    run = run_traced(script, env=dict(os.environ, PYTHONPATH=str(site)))
    assert run.returncode == 0, run.stderr
    assert run.stdout == "yes\n" and run.losses == [2.0]
