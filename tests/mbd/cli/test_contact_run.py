"""`mbd run` of a model with contacts: the files, and --contacts drawing the points."""
import textwrap

from mbd import cli

SCRIPT = textwrap.dedent('''
    import numpy as np
    import mbd
    from forces import ElastoGap
    from joints import SixDof

    T_END, OUTPUT_STEP = 0.5, 0.01

    def build_model():
        model = mbd.Model("drop")
        floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -9.81)))
        floor.add_shape(mbd.Plane(), contact=True)
        ball = model.add_body("ball", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 4e-3)
        ball.add_shape(mbd.Sphere(0.1), contact=True)
        model.add(SixDof("free", floor, ball["cg"], q0=(0, 0, 0.4, 1, 0, 0, 0)))
        model.add(mbd.Contact("bounce", floor, ball, ElastoGap(c=1e5, d=50.0, n=1.5)))
        return model
''')


def test_mbd_run_writes_a_contact_model_and_draws_its_points_on_request(tmp_path, monkeypatch,
                                                                          capsys):
    import viz.render
    drawn = []
    monkeypatch.setattr(viz.render, "animate",
                        lambda result, path, **options: drawn.append(options) or
                        open(path, "wb").close())
    script = tmp_path / "drop.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    assert cli.main(["run", str(script), "--out", str(out), "--animate", "--contacts"]) == 0
    assert drawn and drawn[0]["contacts"] is True
    header = (out / "drop.csv").read_text().splitlines()[0].split(",")
    assert "bounce: point.work" in header and "bounce: point.friction_work" in header
    assert cli.main(["run", str(script), "--out", str(out), "--animate"]) == 0
    assert "contacts" not in drawn[1]
    assert cli.main(["check", str(script)]) == 0
    assert "'bounce': floor Plane / ball Sphere; 1 point(s)" in capsys.readouterr().out
