import textwrap

from torchlift.verify.trace import run_traced


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
