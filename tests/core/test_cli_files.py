"""File and pipe errors of the command line: one line naming the path and the cause, checked
before any work is done; a reader that leaves (``| head``) ends the command quietly."""
import subprocess
import sys
import textwrap

from rtmbs.cli import main


def test_a_folder_given_as_model_is_named(tmp_path, capsys):
    assert main(["info", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == f"rtmbs: error: {tmp_path}: is a folder, expected a YAML model file\n"


def test_an_output_folder_that_cannot_be_made_is_refused_before_the_run(tmp_path, capsys):
    blocker = tmp_path / "results.txt"
    blocker.write_text("not a folder")
    assert main(["run", "double-pendulum", "--out", str(blocker / "sub")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rtmbs: error: output folder '{blocker / 'sub'}': cannot write there (")
    assert main(["run", "double-pendulum", "--out", str(blocker)]) == 1
    err = capsys.readouterr().err
    assert err == f"rtmbs: error: output folder '{blocker}': a file of that name exists\n"


def test_a_closed_pipe_ends_the_command_quietly():
    """A command printing 5 MB into a pipe whose reader stops after 100 bytes: exit code 1, no
    traceback and no 'Exception ignored' at interpreter exit."""
    code = textwrap.dedent("""
        import rtmbs.cli.commands as c
        def big(args):
            for _ in range(100_000):
                print("x" * 50)
            return 0
        c.cmd_models = big
        from rtmbs.cli import main
        raise SystemExit(main(["models"]))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "Exception ignored" not in err, err
