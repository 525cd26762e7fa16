"""A URDF's text, written by the tests (tests/mbd/exchange/test_urdf.py, test_urdf_paths.py): links
with an inertial, joints with an origin and an axis, the file around them."""


def _inertial(mass=1.0, com="0.1 0.02 -0.05", rpy="0.1 0.2 0.3",
              inertia=(0.02, 0.03, 0.04, 0.001, -0.002, 0.003)):
    ixx, iyy, izz, ixy, ixz, iyz = inertia
    return (f'<inertial><origin xyz="{com}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" '
            f'iyz="{iyz}"/></inertial>')


def _link(name, inertial=None, extra=""):
    return (f'<link name="{name}">{_inertial() if inertial is None else inertial}'
            f'{extra}</link>')


def _joint(name, kind, parent, child, axis="0 0 1", xyz="0.1 0.2 0.3", rpy="0.3 -0.2 0.5",
           extra=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'{extra}</joint>')


def _urdf(tmp_path, body, name="robot.urdf"):
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<robot name="r">{body}</robot>\n')
    return path
