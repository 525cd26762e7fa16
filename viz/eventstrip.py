"""The plot's event strip (:func:`viz.plot`): a row per element that switched, a tick per
switch, or, for a row of many (a robot's feet, balls settling), a density band of the
counts per bin; the contact intervals shaded; at most :data:`EVENT_ROWS_MAX` rows, the rest
merged into one. Imported by :mod:`viz.plots` after its backend choice."""
from __future__ import annotations

import textwrap

import numpy as np
from matplotlib.lines import Line2D

#: the height of one row of the event strip (inches)
EVENT_ROW_HEIGHT = 0.24
#: the height of a line of the event strip's legend (inches, x-small text)
EVENT_LEGEND_LINE = 0.15
#: the event strip's legend names at most this many kinds of switch per element, each line
#: at most EVENT_LEGEND_WIDTH characters
EVENT_KINDS, EVENT_LEGEND_WIDTH = 2, 46
#: a row of the event strip with more events than this is drawn as a density band (the
#: count per bin, :data:`EVENT_BINS` bins over the run, as a shade) instead of a tick per
#: event: 200 ticks across the strip's ~900 pixels are already 4 or 5 pixels apart
EVENT_TICKS_MAX = 200
#: the event strip's most rows: the elements after the first EVENT_ROWS_MAX - 1 to switch
#: share the last row, "N more elements", a density band
EVENT_ROWS_MAX = 30
#: the bins of a density band over the run
EVENT_BINS = 200


def event_rows(result):
    """[(element, event times, contact intervals, kinds)] of every element that switched, in
    the order of their first switch (a contact's points as their contact); the intervals
    [(t0, t1)] where a gap, stop or backlash element or a contact is in contact (t1 the
    run's end for a contact still going), from its law's contact state or the contact's
    view; kinds [(what, count)] of its switches, in the order they first happen."""
    system = result.system
    owner = {system.force_elements[i].name: name
             for name, indices in system.contacts.items() for i in indices}
    times, kinds = {}, {}
    for ev in result.events:
        element = owner.get(ev.element, ev.element)
        times.setdefault(element, []).append(float(ev.t))
        counts = kinds.setdefault(element, {})
        counts[ev.what] = counts.get(ev.what, 0) + 1
    end = float(result.t[-1])
    rows = []
    for element, ts in times.items():
        spans = []
        if element in system.contacts:
            spans = [(a, end if np.isnan(b) else b)
                     for a, b in result.contact(element).intervals()]
        elif element in system.force_index:
            view = result.force(element)
            if "contact" in view.state:
                spans = [(a, end if np.isnan(b) else b) for a, b, _ in view.contacts()]
        rows.append((element, np.array(ts), spans, list(kinds[element].items())))
    return rows


def capped_rows(rows, limit=None):
    """(rows, merged): the event strip's rows, at most ``limit`` (default
    :data:`EVENT_ROWS_MAX`): past it the first ``limit - 1`` as they are and one row
    ``"<N> more elements"`` of the others' events (sorted; no contact intervals; their kinds
    of switch added up), whose name is ``merged`` (None when nothing was merged)."""
    limit = EVENT_ROWS_MAX if limit is None else limit
    if len(rows) <= limit:
        return list(rows), None
    kept, rest = list(rows[:limit - 1]), rows[limit - 1:]
    merged = f"{len(rest)} more elements"
    kinds = {}
    for _, _, _, row_kinds in rest:
        for what, n in row_kinds:
            kinds[what] = kinds.get(what, 0) + n
    ts = np.sort(np.concatenate([row[1] for row in rest]))
    return kept + [(merged, ts, [], list(kinds.items()))], merged


def event_density(ts, t0, t1, bins=EVENT_BINS):
    """The events at times ``ts`` counted in ``bins`` equal bins from ``t0`` to ``t1`` (s):
    (counts (bins,) int, edges (bins + 1,) s). Every event is counted, one outside the span
    in its nearest end bin (the counts add up to ``len(ts)``); a span of no length is one of
    1 s about ``t0``.

    Examples
    --------
    >>> counts, edges = event_density([0.0, 0.1, 0.15, 1.0], 0.0, 1.0, bins=4)
    >>> counts.tolist(), edges.tolist()
    ([3, 0, 0, 1], [0.0, 0.25, 0.5, 0.75, 1.0])
    """
    ts = np.asarray(ts, dtype=float).ravel()
    t0, t1 = float(t0), float(t1)
    if not t1 > t0:
        t0, t1 = t0 - 0.5, t0 + 0.5
    counts, edges = np.histogram(np.clip(ts, t0, t1), bins=int(bins), range=(t0, t1))
    return counts, edges


def _banded(row, merged):
    """Whether a row of the strip is drawn as a density band (more than
    :data:`EVENT_TICKS_MAX` events, or the merged row)."""
    return row[0] == merged or len(row[1]) > EVENT_TICKS_MAX


def _row_span(rows, span):
    """The run's (t0, t1), or the events' when it is not known."""
    if span is not None:
        return span
    ts = np.concatenate([row[1] for row in rows]) if rows else np.zeros(1)
    return float(ts.min()), float(ts.max())


def _duration(seconds):
    """'10 ms', '2.5 s', '40 us': a bin's width, to 3 digits."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= scale or unit == "us":
            return f"{seconds / scale:.3g} {unit}"


def _density_text(ts, span):
    """'1234 events, up to 57 per 10 ms': a band's count and its peak bin."""
    counts, edges = event_density(ts, *span)
    return (f"{len(ts)} events, up to {int(counts.max(initial=0))} per "
            f"{_duration(edges[1] - edges[0])}")


def event_legend_texts(rows, span=None, merged=None):
    """The event strip's legend, a text per row: what its ticks are, "sway: K below K_min:
    K_min in use (5) / K in use (5)" (at most :data:`EVENT_KINDS` kinds of switch, the rest
    counted), and for a density band (:func:`_banded`) its count and peak, "; 1234 events,
    up to 57 per 10 ms" (bins over ``span``, the run's (t0, t1)), wrapped at
    :data:`EVENT_LEGEND_WIDTH` characters; then "in contact" when a row is shaded."""
    texts = []
    for row in rows:
        element, ts, _, kinds = row
        shown = " / ".join(f"{what} ({n})" for what, n in kinds[:EVENT_KINDS])
        if len(kinds) > EVENT_KINDS:
            more = len(kinds) - EVENT_KINDS
            shown += f" / {more} more kind{'s' if more > 1 else ''}"
        if _banded(row, merged):
            shown += "; " + _density_text(ts, _row_span(rows, span))
        # broken at spaces only: a name or a kind is never split
        texts.append(textwrap.fill(f"{element}: {shown}", EVENT_LEGEND_WIDTH,
                                   subsequent_indent="  ", break_long_words=False,
                                   break_on_hyphens=False))
    if any(spans for _, _, spans, _ in rows):
        texts.append("shaded: in contact")
    return texts


def draw_event_strip(ax, rows, colors, span=None, merged=None):
    """One row per element: a tick at each switch, or a density band for a row of many
    (:func:`_banded`: an image of the counts per bin, :func:`event_density`, white to the
    row's colour, empty bins left clear), its contact intervals shaded; a legend saying what
    each row's ticks are (:func:`event_legend_texts`) and what the shading is. ``span``:
    the run's (t0, t1); ``merged``: the name of the row of the elements past
    :data:`EVENT_ROWS_MAX` (:func:`capped_rows`)."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.patches import Patch
    bands = [_banded(row, merged) for row in rows]
    for k, (element, ts, spans, _) in enumerate(rows):
        y = len(rows) - 1 - k                       # the first to switch on top
        color = colors[element]
        if spans:
            ax.broken_barh([(a, b - a) for a, b in spans], (y - 0.32, 0.64), color=color,
                           alpha=0.22, linewidth=0)
        if bands[k]:
            counts, edges = event_density(ts, *_row_span(rows, span))
            # no events (masked): clear, the strip shows through
            ramp = LinearSegmentedColormap.from_list(
                f"events {element}", ["white", color]).with_extremes(bad=(1, 1, 1, 0))
            ax.imshow(np.ma.masked_equal(counts[None, :], 0), cmap=ramp, aspect="auto",
                      vmin=0, vmax=max(int(counts.max()), 1), interpolation="nearest",
                      origin="lower", extent=(edges[0], edges[-1], y - 0.32, y + 0.32))
        else:
            ax.eventplot([ts], lineoffsets=y, linelengths=0.64, linewidths=0.9,
                         colors=[color])
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{element} ({len(ts)})" for element, ts, _, _ in reversed(rows)],
                       fontsize="small")
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("events")
    ax.set_title("switch events (ticks, count in brackets); shaded: in contact"
                 + ("; bands: events per bin, darker more" if any(bands) else ""),
                 fontsize="small", loc="left")
    ax.grid(True, axis="x", linewidth=0.3, alpha=0.5)
    texts = event_legend_texts(rows, span, merged)
    handles = [Patch(facecolor=colors[row[0]], linewidth=0) if band else
               Line2D([], [], marker="|", linestyle="none", markersize=9, markeredgewidth=1.2,
                      color=colors[row[0]]) for row, band in zip(rows, bands)]
    if len(texts) > len(rows):
        handles.append(Patch(facecolor="0.5", alpha=0.22, linewidth=0))
    title = "ticks: the switches of each element"
    if any(bands):
        title += "\nbands: their count per bin"
    ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0, fontsize="x-small", frameon=False,
              title=title, title_fontsize="x-small", alignment="left")


def strip_height(rows, span=None, merged=None):
    """The event strip's height (inches): as tall as its rows, or as its legend (what each
    row's ticks are), whichever is taller."""
    lines = sum(text.count("\n") + 1 for text in event_legend_texts(rows, span, merged))
    return max(0.45 + EVENT_ROW_HEIGHT * len(rows), 0.3 + EVENT_LEGEND_LINE * (lines + 1))
