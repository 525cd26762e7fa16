"""The compiled data: one record type per kind of thing, with named fields (DESIGN §2, §3).

The kernels read and write numpy *structured arrays* — an array of records per kind, as
MuJoCo's ``mjModel``/``mjData`` hold flat arrays per kind — so a compiled call takes a few
arrays instead of dozens and every field has a name (``tree[i].parent``, ``links[i].E0``).
This module is the only place that defines fields; nothing outside it indexes the compiled
data by position.

================  ===========================================================================
record            one per ...
================  ===========================================================================
``LINK``          tree link (one per joint primitive): the System's read-only tree
``LINK_STATE``    tree link: kinematics and dynamics scratch of one evaluation
``SCRATCH``       evaluation: small named vectors and matrices (a 1-record array)
``ELEMENT``       force element: placement and law (parameters writable for K(t) laws)
``ELEMENT_STATE`` force element: what it measured and applied in the last evaluation
``MODE``          force element: the frozen branch (the *sides* of its switching functions and,
                  for a line element, the reference direction of its line)
``CLOSURE``       cut joint: where its massless chain ends and the follower CS it must meet
``DRIVER``        a row on joint coordinates, q - ratio q_coupled = position(t): a motion driver
                  (ratio 0, its prescribed motion at the current time), a gear (motion 0) or
                  a stiction element's lock (rate held at 0, active only while it sticks)
``LOOP``          run with constraints: the rank rule's verdicts (a 1-record array)
``STEPPER``       run of the compiled integrator: its state between calls (a 1-record array)
``SETTINGS``      run of the compiled integrator: its tolerances and step limits (a 1-record
                  array, :meth:`mbd.settings.Settings.record`)
``RADAU``         run of the compiled Radau IIA loop: its method state between calls (a 1-record
                  array, beside ``STEPPER``)
``CONTROL``       continuous controller evaluated compiled (:mod:`mbd.compiled.controlkernels`):
                  where its inputs come from, its parameters, its inputs, states, state rates
                  and outputs of the last evaluation, the law parameters its outputs feed
``BROAD_SHAPE``   contact shape: its link, centre and bounding sphere (a plane: its normal)
``BROAD_PAIR``    contact (a pair of shapes): its shapes, first point and law's reach
``BROAD_POINT``   force element: its contact pair and patch, and whether its record is live
``BROAD``         evaluation: the broad phase's stamp and counts (a 1-record array)
================  ===========================================================================

All of one evaluation's data travel together in :class:`Data` (a named tuple of these arrays,
plus the normalized positions ``q``, the generalized forces ``tau``, the constrained
solve's structure ``pattern`` and its flat buffer ``loopbuf``); its field types are the same
for every model, so each compiled function is compiled once, whatever the mechanism.

Units are SI; spatial vectors are Featherstone's ``[w; v]`` (motion) and ``[n; f]`` (force).
"""
from collections import namedtuple

import numpy as np

#: link primitive codes (``LINK.jtype``)
FIXED, REVOLUTE, PRISMATIC, SPHERICAL = 0, 1, 2, 3

#: force placement codes (``ELEMENT.kind``)
JOINT, LINE, AXIAL, ROTATIONAL, BUSHING, CONTACT = 0, 1, 2, 3, 4, 5
#: the most contact points one pair of shapes gives (a box on a plane: its 8 vertices)
MAX_CONTACT_POINTS = 8
#: the most vertices of a convex mesh's hull (``mbd.model.shapes.MAX_HULL_VERTICES``)
MAX_HULL_VERTICES = 64
#: GJK/EPA's polytope: its most vertices and faces (:mod:`mbd.compiled.convex`)
GJK_VERTICES = 128
GJK_FACES = 2 * GJK_VERTICES

#: switching functions per element: the law's (``LAW_SWITCHES``) and the placement's own
LAW_SWITCHES = 4
PLACEMENT_SWITCH = LAW_SWITCHES     # the line element's passage through its anchor
SWITCHES = LAW_SWITCHES + 1
#: parameters per law (a bushing's six stiffnesses, six dampings and six preloads: 18; a table
#: law's 32 breakpoints with their values and slopes, and its header of 4: 100)
MAX_PARAMS = 100

#: the BUSHING placement's parameter record: where its six stiffnesses, six dampings and six
#: preloads begin in the row (along, then about, CS A's x, y, z; forces.Bushing's law)
STIFFNESS, DAMPING, PRELOAD = 0, 6, 12

#: what the force elements' evaluation computes (:func:`mbd.compiled.statekernels.elements_at`):
#: their switching functions, the mode the state selects, their records; ONE_ELEMENT + i:
#: element i's switching functions alone, measured (what locating its crossing asks)
SWITCHING, NATURAL_MODE, RECORDS, ONE_ELEMENT = 0, 1, 2, 3

#: the tasks of a law kind's kernel entry (``ELEMENT.law_entry``, see
#: :mod:`mbd.compiled.registry`): the force, the switching functions, the sides the state
#: selects, whether a switching function is armed, whether the force is odd at x = 0
LAW_FORCE, LAW_SWITCHING, LAW_NATURAL_SIDES, LAW_ARMED, LAW_ODD_AT_ZERO = range(5)

LINK = np.dtype([
    ("parent", np.int64),           # parent link, -1 for a link on a ground
    ("jtype", np.int64),            # FIXED, REVOLUTE, PRISMATIC or SPHERICAL
    ("nd", np.int64),               # velocity coordinates of the primitive (0, 1 or 3)
    ("qadr", np.int64),             # its first position coordinate in q
    ("vadr", np.int64),             # its first velocity coordinate in v
    ("axis", np.float64, 3),        # unit axis in link coordinates (R, P)
    ("E_T", np.float64, (3, 3)),    # tree transform X_T = rot(E_T) xlt(r_T): parent -> link
    ("r_T", np.float64, 3),         # link origin in parent coordinates, m
    ("inertia", np.float64, (6, 6)),  # spatial inertia about the link origin, link axes
    ("mass", np.float64),           # kg (0 for a massless link of a multi-primitive joint)
    ("com", np.float64, 3),         # centre of gravity in link coordinates, m
    ("gravity", np.float64, 3),     # the machine's gravity, world, m/s^2
], align=True)

LINK_STATE = np.dtype([
    ("E", np.float64, (3, 3)),      # X_i = rot(E) xlt(r): parent -> link
    ("r", np.float64, 3),
    ("E0", np.float64, (3, 3)),     # world -> link rotation (rows: link axes in world)
    ("p0", np.float64, 3),          # link origin in the world, m
    ("vel", np.float64, 6),         # spatial velocity, link coordinates
    ("cj", np.float64, 6),          # velocity-product term vel x (S qd)
    ("acc", np.float64, 6),         # spatial acceleration (RNEA, ABA), link coordinates
    ("avp", np.float64, 6),         # velocity-product acceleration (qdd = 0, no gravity)
    ("fext", np.float64, 6),        # external force on the link (force elements), link coords
    ("f", np.float64, 6),           # RNEA link force (what the parent side transmits)
    ("IA", np.float64, (6, 6)),     # articulated (ABA) or composite (CRBA) inertia
    ("pA", np.float64, 6),          # articulated bias force
    ("U", np.float64, (6, 3)),      # ABA: IA S
    ("Dinv", np.float64, (3, 3)),   # ABA: (S^T U)^-1
    ("u", np.float64, 3),           # ABA: tau - S^T pA
    ("Sw", np.float64, (6, 3)),     # world-frame ABA: motion subspace at the tree's root
    ("vw", np.float64, 6),          # world-frame ABA: velocity
    ("cw", np.float64, 6),          # world-frame ABA: velocity-product term
    ("ref", np.float64, 3),         # world-frame ABA: origin relative to the root link's, m
], align=True)

SCRATCH = np.dtype([
    ("EJ", np.float64, (3, 3)),     # joint rotation
    ("J3", np.float64, (3, 3)),     # 3x3 work matrices
    ("T3", np.float64, (3, 3)),
    ("D3", np.float64, (3, 3)),
    ("Rf", np.float64, (3, 3)),     # a closure's follower CS axes, world
    ("M3", np.float64, (3, 3)),     # a rotational element's relative rotation
    ("X6", np.float64, (6, 6)),     # inertia transform work
    ("I6", np.float64, (6, 6)),
    ("W63", np.float64, (6, 3)),    # U D^-1
    ("a", np.float64, 6),           # 6-vectors
    ("b", np.float64, 6),
    ("c", np.float64, 6),
    ("d", np.float64, 6),
    ("e", np.float64, 6),
    ("p", np.float64, 3),           # 3-vectors
    ("w", np.float64, 3),
    ("quat", np.float64, 4),
    ("shape_a", np.float64, (4, 3)),  # CONTACT: a shape's centre, axis, axis ends (world, m)
    ("shape_b", np.float64, (4, 3)),
    ("gaps", np.float64, MAX_CONTACT_POINTS),          # CONTACT: a pair's points (gap, m;
    ("normals", np.float64, (MAX_CONTACT_POINTS, 3)),  # normal from a into b; witness
    ("witness_a", np.float64, (MAX_CONTACT_POINTS, 3)),  # points on a and on b, world, m)
    ("witness_b", np.float64, (MAX_CONTACT_POINTS, 3)),
    ("gjk_points", np.float64, (GJK_VERTICES, 9)),    # CONTACT: GJK/EPA's work arrays
    ("gjk_faces", np.float64, (GJK_FACES, 4)),        # (mbd.compiled.convex)
    ("gjk_face_links", np.int64, (GJK_FACES, 11)),
    ("gjk_edges", np.int64, (GJK_VERTICES, 3)),
], align=True)

ELEMENT = np.dtype([
    ("kind", np.int64),             # JOINT, LINE, AXIAL, ROTATIONAL, BUSHING, CONTACT
    ("law", np.int64),              # law code (mbd.compiled.lawkernels)
    ("q_index", np.int64),          # JOINT: the primitive's coordinate in q
    ("v_index", np.int64),          # JOINT: ... and in v
    ("link_a", np.int64),           # other placements: the links of CS A and B (-1: ground)
    ("link_b", np.int64),
    ("pos_a", np.float64, 3),       # CS origins in their link frames (world for a ground), m
    ("pos_b", np.float64, 3),
    ("axis", np.float64, 3),        # AXIAL/ROTATIONAL: unit axis in A's link frame
    ("R0", np.float64, (3, 3)),     # ROTATIONAL: B's link axes relative to A's in the drawing
    ("frame_a", np.float64, (3, 3)),  # BUSHING: CS A's axes (columns) in A's link frame ...
    ("frame_b", np.float64, (3, 3)),  # ... and CS B's in B's (world for a ground)
    ("eps", np.float64),            # LINE: the distance below which |r| counts as 0, m
    ("params", np.float64, MAX_PARAMS),  # the law's parameter row
    ("signal", np.int64),           # the address of a compiled f(t) giving one of its
    ("signal_slot", np.int64),      # parameters (0: none), and that parameter's slot
    ("law_entry", np.int64),        # the address of its law kind's kernel entry (LAW_*)
    ("measure_entry", np.int64),    # BUSHING: the address of its measure, compiled apart
    ("pair", np.int64),             # CONTACT: the pair of shapes (mbd.compiled.contactkernels)
    ("feature", np.int64),          # ... which of the pair's points this element is
    ("flip", np.int64),             # ... 1: the pair's first shape is B's (the normal flips)
    ("size_a", np.float64, 3),      # ... the shapes' sizes: radius, half length or half
    ("size_b", np.float64, 3),      #     sizes, m (frame_a, frame_b: their axes)
    ("friction", np.float64, 4),    # ... Coulomb's mu_s, mu_k, v_crit (m/s), exact (1: stick-
                                    #     slip); mu_s 0: none
    ("patch", np.int64),            # ... exact friction: its patch's first point (-1: none)
    ("patch_size", np.int64),       # ... and (on that first point) the patch's points
    ("kinds", np.int64, 2),         # ... a pair by GJK/EPA: its shapes' kinds (convex.SPHERE..)
    ("hull_a", np.float64, (MAX_HULL_VERTICES, 3)),   # ... a convex mesh's hull vertices in
    ("hull_b", np.float64, (MAX_HULL_VERTICES, 3)),   #     its shape's frame, m, and how
    ("hull_count", np.int64, 2),                      #     many (a's, b's)
], align=True)

ELEMENT_STATE = np.dtype([
    ("x", np.float64),              # what the law read: coordinate (m, rad) ...
    ("xdot", np.float64),           # ... and its rate
    ("value", np.float64),          # the law's force (N) or torque (N m) on B along +x
                                    # (BUSHING: 1, its loads are its wrench; x is its stored
                                    # energy, J, and xdot the power it delivers, W)
    ("vector", np.float64, 3),      # the world load on B: force (line, axial), torque (rot.)
    ("status", np.int64),           # 0 ok, 1 no direction (|r| = 0 at rest), 2 no twist angle
    ("direction", np.float64, 3),   # world direction of the load on B (BUSHING: its force)
    ("point_a", np.float64, 3),     # world points where the loads act, m
    ("point_b", np.float64, 3),
    ("vel_a", np.float64, 3),       # world velocities of those points, m/s
    ("vel_b", np.float64, 3),
    ("w_a", np.float64, 3),         # world angular velocities of A's and B's links, rad/s
    ("w_b", np.float64, 3),
    ("torque", np.float64, 3),      # BUSHING: the world torque on B, N m
    ("wrench", np.float64, 6),      # BUSHING: [force; torque] on B in CS A's axes, N and N m
    ("deflection", np.float64, 6),  # BUSHING: [d; theta] of B relative to A, A's axes, m, rad
    ("rate", np.float64, 6),        # BUSHING: [ddot; w] of B relative to A, A's axes, m/s, rad/s
    ("friction", np.float64, 3),    # CONTACT: the world friction force on B at the point, N
    ("lock", np.float64, 4),        # CONTACT, a stuck patch's first point: the force (world,
                                    # N) and moment about its normal (N m) holding B
    ("patch_point", np.float64, 3),  # ... its centre (its points in contact), world, m
    ("patch_normal", np.float64, 3),  # ... its normal, the points' mean
    ("slip", np.float64, 3),        # ... the patch's mean slip velocity, world, m/s
], align=True)

MODE = np.dtype([
    ("sides", np.float64, SWITCHES),  # +-1: the side of each switching function (frozen)
    ("reference", np.float64, 3),   # LINE: the line's direction when the piece began
], align=True)

#: a contact shape as the broad phase sees it (:func:`mbd.compiled.broadphase.broad_phase`)
BROAD_SHAPE = np.dtype([
    ("link", np.int64),             # its link (-1: a ground)
    ("position", np.float64, 3),    # its centre (its CS origin), link frame (ground: world), m
    ("normal", np.float64, 3),      # a plane: its normal (its CS z axis), link frame
    ("radius", np.float64),         # its bounding sphere's radius about the centre, m (inf: a
                                    # plane, a half-space below its normal)
    ("centre", np.float64, 3),      # at the evaluation: the centre, world, m
    ("direction", np.float64, 3),   # ... a plane's normal, world
], align=True)

#: a contact's pair of shapes as the broad phase sees it
BROAD_PAIR = np.dtype([
    ("shape_a", np.int64),          # its shapes (rows of the shapes' table)
    ("shape_b", np.int64),
    ("reach", np.float64),          # the gap beyond which its law exerts nothing, m (its
                                    # ``reach_slot`` parameter, constant over a run)
    ("reach_slot", np.int64),       # that parameter's slot (-1: none: always measured)
    ("near", np.int64),             # the broad phase's stamp where it was last found near
    ("bound", np.float64),          # ... and its bound on the gap there, m (<= every point's)
], align=True)

#: a force element as the broad phase sees it: compact, so that a loop over thousands of
#: contact points left unmeasured touches none of their (large) records
BROAD_POINT = np.dtype([
    ("pair", np.int64),             # its contact pair (-1: no contact point)
    ("patch", np.int64),            # its exact-friction patch's first point (-1: none)
    ("written", np.int64),          # 1: its record holds a measurement, 0: zeroed (no load)
], align=True)

#: the broad phase's own state
BROAD = np.dtype([
    ("stamp", np.int64),            # its evaluations so far
    ("exact", np.int64),            # > 0: every pair counts as near (the records' evaluation)
    ("culled", np.int64),           # pairs left unmeasured over the run (a count)
    ("passes", np.int64),           # evaluations with pairs (a count)
], align=True)

CLOSURE = np.dtype([
    ("end", np.int64),              # the last link of the cut joint's massless chain
    ("base", np.int64),             # the link carrying the follower CS (-1: a ground)
    ("position", np.float64, 3),    # the follower CS in that link's frame (world: ground), m
    ("rotation", np.float64, (3, 3)),
], align=True)

DRIVER = np.dtype([
    ("q_index", np.int64),          # the driven coordinate
    ("v_index", np.int64),
    ("coupled_q", np.int64),        # a gear's input coordinate (a motion driver: its own)
    ("coupled_v", np.int64),
    ("ratio", np.float64),          # a gear's ratio (a motion driver: 0)
    ("position", np.float64),       # the prescribed motion of q - ratio q_coupled now
    ("velocity", np.float64),
    ("acceleration", np.float64),
    ("active", np.float64),         # 1: the row holds; 0: a lock whose element slips (no row)
    ("element", np.int64),          # a lock: its stiction element (-1: a driver or a gear)
], align=True)

LOOP = np.dtype([
    ("rank", np.int64),             # the constraint rows' rank, fixed by the assembled state
    ("found", np.int64),            # the rank the last check found (-1: not checked)
    ("smallest", np.float64),       # the weakest kept direction's strength (compiled.loopsolve)
    ("dropped", np.float64),        # the strongest dropped direction's strength
    ("projection_tol", np.float64),  # the closure residual projection brings y to, m / rad
], align=True)

STEPPER = np.dtype([
    ("t", np.float64),              # time reached, s
    ("t_bound", np.float64),        # where the piece ends, s (the piece loop sets it)
    ("h_abs", np.float64),          # the next step size, s
    ("t_old", np.float64),          # the last step's start ...
    ("h_prev", np.float64),         # ... and size, s
    ("t_bad", np.float64),          # where an evaluation failed, s
    ("nfev", np.int64),             # right-hand-side evaluations
    ("nsteps", np.int64),           # accepted steps
    ("next_row", np.int64),         # the next output row to write
    ("bad", np.int64),              # what the failed evaluation returned
    ("stiffness_check", np.int64),  # 1: test for stiffness (method "auto"), 0: do not
    ("stiff_tests", np.int64),      # how many tests in a row found h |lambda| past DOP853's
                                    # stability bound ...
    ("calm_tests", np.int64),       # ... and how many in a row did not
    ("starting", np.int64),         # 1: a piece begins at (t, y); the stepper clears it
    ("pause_at", np.int64),         # the stepper pauses once nsteps reaches this
    ("dense_on_pause", np.int64),   # 1: the last step's dense output made where it pauses
                                    # (a live simulation reads the state inside that step)
    ("on_step", np.int64),          # the address of a switching function on a step's dense
                                    # output (steppers.steplocate.switching_on_step; 0: none)
    ("screen", np.int64),           # the address of the loop's double-crossing screen (its
                                    # method's screen(f, work, across); 0: none)
    ("weakest", np.float64),        # with constraints: the weakest direction's strength at
                                    # the last step's end (mbd.run.steppers.changepoints) ...
    ("t_cross", np.float64),        # ... and where the next change point is expected, s
                                    # (-inf: none)
    ("jump_only", np.int64),        # DOP853 jumping a change point for Radau: the step count
                                    # when it took over, + 1 (0: not so)
], align=True)

SETTINGS = np.dtype([
    ("rtol", np.float64),           # relative tolerance
    ("atol", np.float64),           # absolute tolerance, in the state's SI units
    ("first_step", np.float64),     # the piece's first step, s (0: Hairer's rule)
    ("max_step", np.float64),       # the largest step, s
    ("quad_start", np.int64),       # the quadratures y[quad_start:quad_stop] (the work
    ("quad_stop", np.int64),        # accumulators): integrated, left out of every error
                                    # norm and Newton test (quad_start = quad_stop: none)
], align=True)

RADAU = np.dtype([
    ("h_abs_old", np.float64),      # the step size held before the last accepted step, s
                                    # (-1: none, the controller's one-step formula)
    ("error_norm_old", np.float64),  # the last accepted step's error norm (-1: none)
    ("newton_tol", np.float64),     # the Newton iteration's tolerance (scaled norm)
    ("current_jac", np.int64),      # 1: J was evaluated at the current (t, y)
    ("lu_valid", np.int64),         # 1: the next step reuses the Newton matrices' LU factors
    ("has_sol", np.int64),          # 1: the last step's dense output (t_old, h_prev, y_old,
                                    # Q) predicts the next step's stages
    ("njev", np.int64),             # Jacobian evaluations over the run (n right-hand sides
                                    # each, counted in STEPPER.nfev too)
    ("nlu", np.int64),              # LU factorizations over the run (two per step size)
    ("rho", np.float64),            # the spectral radius of J estimated (method "auto"), 1/s
    ("rho_jev", np.int64),          # ... for the Jacobian of this njev
    ("took_over", np.int64),        # STEPPER.nsteps where method "auto" went implicit
], align=True)

#: a compiled controller's most inputs, outputs, states and the law parameters it feeds
MAX_CONTROL_IO = 16
#: its parameter row (a state space's A, B, C and D; a PID's gains; a lookup table's row)
MAX_CONTROL_PARAMS = 256

#: where a compiled controller's input comes from (``CONTROL.source``)
HELD, JOINT_Q, JOINT_V, CS_POSITION, CS_VELOCITY, CS_ANGULAR_VELOCITY, OUTPUT = range(7)

CONTROL = np.dtype([
    ("address", np.int64),          # its kind's compiled kernel (0: evaluated from Python)
    ("n_in", np.int64),             # inputs, outputs and states
    ("n_out", np.int64),
    ("n_states", np.int64),
    ("state_at", np.int64),         # where its states lie in the run's state y
    ("source", np.int64, MAX_CONTROL_IO),   # per input: HELD, JOINT_Q ... OUTPUT
    ("index", np.int64, MAX_CONTROL_IO),    # ... q / v index, link (-1: ground), controller
    ("axis", np.int64, MAX_CONTROL_IO),     # ... world axis, or the controller's output
    ("point", np.float64, (MAX_CONTROL_IO, 3)),  # ... a CS's origin in its link's frame, m
    ("u", np.float64, MAX_CONTROL_IO),      # its inputs (HELD ones written from Python)
    ("t", np.float64),              # the time of the evaluation, s
    ("x", np.float64, MAX_CONTROL_IO),      # its states, rates and outputs there
    ("xdot", np.float64, MAX_CONTROL_IO),
    ("out", np.float64, MAX_CONTROL_IO),
    ("n_bind", np.int64),           # the law parameters its outputs are: element, slot, output
    ("bind_element", np.int64, MAX_CONTROL_IO),
    ("bind_slot", np.int64, MAX_CONTROL_IO),
    ("bind_output", np.int64, MAX_CONTROL_IO),
    ("params", np.float64, MAX_CONTROL_PARAMS),
], align=True)

#: everything one evaluation reads and writes (see the module docstring)
Data = namedtuple("Data", "tree links scratch q tau elements estate mode closures drivers "
                          "pattern loopbuf loop control shapes pairs points broad")


def records(dtype, n):
    """n zeroed records of ``dtype``."""
    return np.zeros(n, dtype=dtype)


def make_data(tree, elements, closures, drivers, nq, nv, pattern, buffer_size, controllers=0,
              shapes=None, pairs=None, points=None):
    """The :class:`Data` of a System's arrays with fresh scratch (one per run or analysis):
    the constrained solve's structure ``pattern`` (int64, :func:`mbd.compiled.loopsolve.pattern`)
    and ``buffer_size`` floats for it (:func:`mbd.compiled.loopsolve.buffer_size`), a
    ``CONTROL`` record per continuous controller (not evaluated until a run installs them),
    and the broad phase's ``BROAD_SHAPE``, ``BROAD_PAIR`` and ``BROAD_POINT`` tables
    (copied; none: no contacts: every element's ``pair`` and ``patch`` -1)."""
    nl, nf = tree.shape[0], elements.shape[0]
    m = 6 * closures.shape[0] + drivers.shape[0]
    loop = records(LOOP, 1)
    loop[0]["rank"] = -1
    loop[0]["found"] = -1
    return Data(tree=tree, links=records(LINK_STATE, nl), scratch=records(SCRATCH, 1),
                q=np.zeros(nq), tau=np.zeros(nv), elements=elements.copy(),
                estate=records(ELEMENT_STATE, nf), mode=initial_mode(nf),
                closures=closures, drivers=drivers.copy(),
                pattern=pattern, loopbuf=np.zeros(buffer_size if m else 0),
                loop=loop, control=records(CONTROL, controllers),
                shapes=(records(BROAD_SHAPE, 0) if shapes is None else shapes.copy()),
                pairs=(records(BROAD_PAIR, 0) if pairs is None else pairs.copy()),
                points=(no_points(nf) if points is None else points.copy()),
                broad=records(BROAD, 1))


def no_points(nf):
    """The ``BROAD_POINT`` records of nf force elements none of which is a contact point."""
    points = records(BROAD_POINT, nf)
    points["pair"] = points["patch"] = -1
    return points


def initial_mode(nf):
    """A mode of nf elements with every side +1 and no line reference (a line's direction is
    then r/|r| as it is; a run sets the references when a piece begins)."""
    mode = records(MODE, nf)
    mode["sides"] = 1.0
    return mode
