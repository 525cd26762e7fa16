"""The plot's event strip with thousands of events: a row of more than
``EVENT_TICKS_MAX`` events is a density band (one image of the counts per bin), not a tick per
event, its legend giving the count and the peak per bin; past ``EVENT_ROWS_MAX`` rows the
rest share one row "N more elements"; a few events are ticks as before."""
import numpy as np
import pytest
from matplotlib.collections import EventCollection
from matplotlib.image import AxesImage

import mbd
from forces import Bistop, JointForce
from joints import Prismatic
from viz import eventstrip, plots


def rattle(others=0, t_end=2.0):
    """A slider rattling between two stiff stops 1 mm apart at 5 m/s (no damping, no
    gravity along it: thousands of contacts, four events each), and ``others`` sliders as it
    but 20 times slower (tens of events each)."""
    m = mbd.Model("rattle")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    for i in range(1 + others):
        b = m.add_body(f"b{i}", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
        s = m.add(Prismatic(f"s{i}", g, b["cg"], axis=(1, 0, 0),
                            v0=5.0 if i == 0 else 0.25))
        m.add(JointForce(f"stop{i}", s, Bistop(x1=-5e-4, x2=5e-4, k=1e7, e=1.0, cmax=0.0,
                                               d=1e-4)))
    return m.simulate(t_end, output_step=0.01)


@pytest.fixture(scope="module")
def dense():
    return rattle()


@pytest.fixture(scope="module")
def crowd():
    return rattle(others=eventstrip.EVENT_ROWS_MAX + 4, t_end=0.3)


def ticks(ax):
    """The number of ticks (event lines) drawn in ``ax``."""
    return sum(len(c.get_segments()) for c in ax.collections if isinstance(c, EventCollection))


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_event_density_counts_every_event():
    rng = np.random.default_rng(3)
    ts = rng.uniform(0.0, 2.0, 5000)
    counts, edges = eventstrip.event_density(ts, 0.0, 2.0)
    assert counts.sum() == len(ts)
    assert len(counts) == eventstrip.EVENT_BINS and len(edges) == eventstrip.EVENT_BINS + 1
    assert edges[0] == 0.0 and edges[-1] == 2.0
    assert np.allclose(np.diff(edges), 0.01)
    # each bin's count is the events in it
    k = 17
    assert counts[k] == np.sum((ts >= edges[k]) & (ts < edges[k + 1]))
    # the run's ends counted, an event past them in the end bin; a span of no length
    counts, _ = eventstrip.event_density([0.0, 2.0, 2.0, -1.0, 3.0], 0.0, 2.0, bins=4)
    assert counts.tolist() == [2, 0, 0, 3]
    counts, edges = eventstrip.event_density([1.0, 1.0], 1.0, 1.0, bins=5)
    assert counts.sum() == 2 and edges[0] < 1.0 < edges[-1]


def test_capped_rows_merge_the_rows_past_the_limit():
    rows = [(f"e{i}", np.array([0.1 * i, 0.1 * i + 0.05]), [(0.0, 0.1)] if i % 2 else [],
             [("contact begins", 1), ("contact ends", 1)]) for i in range(8)]
    same, merged = eventstrip.capped_rows(rows, limit=8)
    assert merged is None and [r[0] for r in same] == [r[0] for r in rows]
    capped, merged = eventstrip.capped_rows(rows, limit=5)
    assert merged == "4 more elements"
    assert [r[0] for r in capped] == ["e0", "e1", "e2", "e3", "4 more elements"]
    name, ts, spans, kinds = capped[-1]
    assert np.array_equal(ts, np.sort(np.concatenate([r[1] for r in rows[4:]])))
    assert spans == [] and kinds == [("contact begins", 4), ("contact ends", 4)]


def test_a_row_of_thousands_of_events_is_a_density_band(dense, tmp_path):
    events = [ev.t for ev in dense.events]
    assert len(events) > 10 * eventstrip.EVENT_TICKS_MAX          # thousands
    assert {ev.element for ev in dense.events} == {"stop0"}
    path = tmp_path / "rattle.png"
    fig, axes = plots.plot(dense, path)
    assert path.stat().st_size > 0
    strip = axes[-1]
    assert strip.get_ylabel() == "events"
    # a band: one image, not thousands of lines
    images = [a for a in strip.get_children() if isinstance(a, AxesImage)]
    assert len(images) == 1
    assert ticks(strip) == 0 and len(strip.lines) == 0
    assert len(strip.get_children()) < 50
    counts, edges = eventstrip.event_density(events, 0.0, 2.0)
    shown = np.ma.filled(images[0].get_array(), 0)
    assert shown.shape == (1, eventstrip.EVENT_BINS)
    assert shown.sum() == len(events)                      # every event is in the band
    assert np.array_equal(shown[0], counts)
    left, right, bottom, top = images[0].get_extent()
    assert (left, right) == (pytest.approx(0.0), pytest.approx(2.0))
    assert bottom < 0.0 < top                              # on its row, the only one
    # the row's label and legend: its count, and the peak per bin of 10 ms
    assert [t.get_text() for t in strip.get_yticklabels()] == [f"stop0 ({len(events)})"]
    text, shading = legend_texts(strip)
    assert shading == "shaded: in contact"          # its contact intervals, one artist
    flat = " ".join(text.split())
    assert f"{len(events)} events, up to {counts.max()} per 10 ms" in flat
    assert "bands" in strip.get_title(loc="left")


def test_rows_past_the_limit_share_one_band_and_few_events_stay_ticks(crowd, tmp_path):
    first = list(dict.fromkeys(ev.element for ev in crowd.events))
    assert len(first) > eventstrip.EVENT_ROWS_MAX
    path = tmp_path / "crowd.png"
    fig, axes = plots.plot(crowd, path, joints=[], forces="stop0", energy=False)
    assert path.stat().st_size > 0
    strip = axes[-1]
    labels = [t.get_text() for t in strip.get_yticklabels()][::-1]    # top to bottom
    assert len(labels) == eventstrip.EVENT_ROWS_MAX
    rest = first[eventstrip.EVENT_ROWS_MAX - 1:]
    n_rest = sum(ev.element in rest for ev in crowd.events)
    assert labels[-1] == f"{len(rest)} more elements ({n_rest})"
    assert [label.split(" (")[0] for label in labels[:-1]] == first[:eventstrip.EVENT_ROWS_MAX - 1]
    # the fast slider's row and the merged row are bands; the others ticks, one per event
    images = [a for a in strip.get_children() if isinstance(a, AxesImage)]
    banded = ["stop0", f"{len(rest)} more elements"]
    assert len(images) == len(banded)
    kept = first[:eventstrip.EVENT_ROWS_MAX - 1]
    few = [e for e in kept if e not in banded]
    assert all(sum(ev.element == e for ev in crowd.events) <= eventstrip.EVENT_TICKS_MAX
               for e in few)
    assert ticks(strip) == sum(ev.element in few for ev in crowd.events)
    assert sum(np.ma.filled(im.get_array(), 0).sum() for im in images) == (
        sum(ev.element in banded + rest for ev in crowd.events))
    texts = legend_texts(strip)
    merged_text = " ".join(texts[eventstrip.EVENT_ROWS_MAX - 1].split())
    assert merged_text.startswith(f"{len(rest)} more elements: ")
    assert f"{n_rest} events, up to" in merged_text and "per 1.5 ms" in merged_text
    # the strip's height is that of its EVENT_ROWS_MAX rows and their legend (one text a row
    # and the shading's), however many elements switch
    assert len(texts) <= eventstrip.EVENT_ROWS_MAX + 1
    lines = sum(text.count("\n") + 1 for text in texts)
    strip_height = max(0.45 + eventstrip.EVENT_ROW_HEIGHT * eventstrip.EVENT_ROWS_MAX,
                       0.3 + eventstrip.EVENT_LEGEND_LINE * (lines + 1))
    assert fig.get_size_inches()[1] == pytest.approx(plots.PANEL_HEIGHT + strip_height + 0.7)


def test_a_few_events_are_ticks_as_before(tmp_path):
    few = rattle(t_end=0.05)
    n = len(few.events)
    assert 0 < n <= eventstrip.EVENT_TICKS_MAX
    _, axes = plots.plot(few, tmp_path / "few.png")
    strip = axes[-1]
    assert not [a for a in strip.get_children() if isinstance(a, AxesImage)]
    assert ticks(strip) == n
    assert legend_texts(strip)[0].startswith("stop0: ")
    assert "events, up to" not in " ".join(legend_texts(strip))
    assert strip.get_title(loc="left") == ("switch events (ticks, count in brackets); "
                                           "shaded: in contact")
