"""`mbd run` of a model with contacts: the files, and --contacts drawing the points."""
from mbd import cli


def test_mbd_run_writes_a_contact_model_and_draws_its_points_on_request(tmp_path, monkeypatch,
                                                                          capsys, drop_script):
    import viz.render
    drawn = []
    monkeypatch.setattr(viz.render, "animate",
                        lambda result, path, **options: drawn.append(options) or
                        open(path, "wb").close())
    script = drop_script
    out = tmp_path / "out"
    assert cli.main(["run", str(script), "--out", str(out), "--animate", "--contacts"]) == 0
    assert drawn and drawn[0]["contacts"] is True
    header = (out / "drop.csv").read_text().splitlines()[0].split(",")
    assert "bounce: point.work" in header and "bounce: point.friction_work" in header
    assert cli.main(["run", str(script), "--out", str(out), "--animate"]) == 0
    assert "contacts" not in drawn[1]
    assert cli.main(["check", str(script)]) == 0
    assert "'bounce': floor Plane / ball Sphere; 1 point(s)" in capsys.readouterr().out
