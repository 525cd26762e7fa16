"""Text over a scene's picture: a title, a time stamp, a label per force element joined to it
by a leader line, and a legend of the contact colours.

Everything here is in display pixels (origin at the bottom left). The scene says which world
point each label points at; every render projects those points with that render's camera
(a renderer ``StartEvent`` observer), so labels follow the motion and, in a window, the
camera. A label stands clear of the bodies (their projected boxes, :meth:`Overlay.set_obstacles`),
the other labels and the fixed texts, as near its point as that allows, and keeps its place
while it stays clear and no other is clearly better (hysteresis), so labels do not jump
between frames.
"""
import numpy as np
from vtkmodules.vtkCommonCore import vtkCommand, vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkPolyDataMapper2D, vtkTextActor

#: font sizes (pixels) at a picture height of 360 pixels; scaled with the height
FONT = {"title": 14, "subtitle": 10, "clock": 13, "label": 10, "legend": 10}
TEXT_COLOR = (0.1, 0.1, 0.1)
LEADER_COLOR = (0.35, 0.35, 0.35)
FRAME_COLOR = (0.45, 0.45, 0.45)   # the frame of a label without a contact state
MARGIN = 6                          # pixels from the picture's edges, at height 360
LEADER_GAP = 8                      # pixels a leader line stops short of its point, at 360
CLEAR = 1e-6                        # pixels^2 of cover that count as none (round-off)

# sides a label may take around its point: (dx, dy) in {-1, 0, 1}, in order of preference
_SIDES = ((1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
#: how far from its point a label may stand, in multiples of the gap (16 pixels at height
#: 360), nearest first: a label moves out only as far as it must to clear the bodies
_REACH = (1.0, 2.0, 3.5, 5.0, 7.0, 10.0)


def _box_overlap(a, b):
    """Area (pixels^2) shared by boxes a and b, each (x0, y0, x1, y1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def label_box(point, side, size, gap):
    """The box (x0, y0, x1, y1) of a label of ``size`` (w, h) on ``side`` (dx, dy) of
    ``point``: its nearest point to ``point`` is ``gap`` pixels away along the side.

    Examples
    --------
    >>> label_box((100, 100), (1, 1), (40, 10), gap=10)
    (107.0710678118654, 107.0710678118654, 147.0710678118654, 117.0710678118654)
    >>> label_box((100, 100), (-1, 0), (40, 10), gap=10)
    (50.0, 95.0, 90.0, 105.0)
    """
    dx, dy = side
    norm = float(np.hypot(dx, dy))
    cx, cy = point[0] + gap * dx / norm, point[1] + gap * dy / norm
    w, h = size
    x0 = cx - w * (1 - dx) / 2.0
    y0 = cy - h * (1 - dy) / 2.0
    return (float(x0), float(y0), float(x0 + w), float(y0 + h))


def _covered(boxes, others):
    """(m,) area (pixels^2) each of ``boxes`` (m, 4) shares with the boxes ``others`` (a
    sequence of (x0, y0, x1, y1)), summed over them."""
    if len(others) == 0:
        return np.zeros(len(boxes))
    o = np.asarray(others, float)
    w = (np.minimum(boxes[:, None, 2], o[None, :, 2]) - np.maximum(boxes[:, None, 0],
                                                                    o[None, :, 0]))
    h = (np.minimum(boxes[:, None, 3], o[None, :, 3]) - np.maximum(boxes[:, None, 1],
                                                                    o[None, :, 1]))
    return (np.clip(w, 0.0, None) * np.clip(h, 0.0, None)).sum(axis=1)


def _nearest_on_box(point, box):
    return (min(max(point[0], box[0]), box[2]), min(max(point[1], box[1]), box[3]))


def _leader(point, box, gap):
    """The leader line [(x, y), (x, y)] from a label's ``box`` towards its ``point``,
    stopping ``gap`` pixels short of it: the line points at the element without painting
    over it (a contact colour stays visible)."""
    end = np.asarray(_nearest_on_box(point, box), float)
    start = np.asarray(point, float)
    length = float(np.linalg.norm(end - start))
    if length > gap:
        start = start + (end - start) * (gap / length)
    return [tuple(start), tuple(end)]


class _Lines2D:
    """Line segments or filled quads in display pixels, one 2-D actor."""

    def __init__(self, renderer, color, width=1.0, filled=False):
        self.poly = vtkPolyData()
        self.filled = filled
        mapper = vtkPolyDataMapper2D()
        mapper.SetInputData(self.poly)
        self.actor = vtkActor2D()
        self.actor.SetMapper(mapper)
        prop = self.actor.GetProperty()
        prop.SetColor(*color)
        prop.SetLineWidth(width)
        renderer.AddViewProp(self.actor)
        self.set([])

    def set(self, shapes, colors=None):
        """``shapes``: point lists (a segment: 2 points, a quad: 4 points), pixels;
        ``colors``: one RGB (0..1) per shape, or None for the actor's colour."""
        points, cells = vtkPoints(), vtkCellArray()
        for shape in shapes:
            ids = [points.InsertNextPoint(float(x), float(y), 0.0) for x, y in shape]
            cells.InsertNextCell(len(ids), ids)
        self.poly.SetPoints(points)
        if self.filled:
            self.poly.SetPolys(cells)
        else:
            self.poly.SetLines(cells)
        if colors is not None:
            from vtkmodules.util.numpy_support import numpy_to_vtk
            rgb = numpy_to_vtk(np.rint(255 * np.asarray(colors, float)).astype(np.uint8),
                               deep=True)
            self.poly.GetCellData().SetScalars(rgb)
        self.poly.Modified()


class Overlay:
    """Title, time stamp, element labels and colour legend drawn over a renderer.

    Parameters
    ----------
    renderer : vtkRenderer
    size : (int, int)
        The picture's size, pixels (width, height).
    title, subtitle : str or None
        Top left; None or "" draws none.
    labels : sequence of (key, text)
        One framed label per force element; :meth:`set_anchor` gives the world point it
        points at.
    legend : sequence of (RGB, text)
        Colour swatches with their meaning, in a row at the bottom left (wrapped onto more
        rows where the picture is too narrow); empty: none. :meth:`set_legend` changes it.

    Attributes
    ----------
    title, subtitle, clock : vtkTextActor or None
    legend : list
        The legend's actors (texts, then the swatches); empty without a legend.
    legend_box : (x0, y0, x1, y1) or None
        Where the legend is, pixels.
    legend_entries : list
        The (RGB, text) entries shown.
    labels : dict
        key -> the label's vtkTextActor.
    sides : dict
        key -> where each label is: ((dx, dy) the side of its point, reach in gaps), or
        None while hidden.
    """

    def __init__(self, renderer, size, title=None, subtitle=None, labels=(), legend=()):
        self.renderer = renderer
        self.size = (int(size[0]), int(size[1]))
        self.scale = max(self.size[1] / 360.0, 0.45)
        self.margin = MARGIN * self.scale
        w, h = self.size
        m = self.margin
        self.title = self._text(title, "title", bold=True) if title else None
        top = h - m
        if self.title is not None:
            self._place_fixed(self.title, m, top, "left", "top")
            top -= self._size(self.title)[1] + 2 * self.scale
        self.subtitle = self._text(subtitle, "subtitle") if subtitle else None
        if self.subtitle is not None:
            self._place_fixed(self.subtitle, m, top, "left", "top")
        self.clock = self._text("t = 0.000 s", "clock", bold=True, mono=True)
        self._place_fixed(self.clock, w - m, h - m, "right", "top")
        self.clock.SetVisibility(False)
        self.legend, self.legend_box, self.legend_entries = [], None, []
        self.set_legend(legend)
        self.labels = {key: self._text(text, "label", frame=True) for key, text in labels}
        self.sides = {key: None for key in self.labels}
        self._anchors = {key: None for key in self.labels}
        self._obstacles = []
        self._leaders = _Lines2D(renderer, LEADER_COLOR, width=max(1.0, self.scale))
        self._observer = renderer.AddObserver(vtkCommand.StartEvent, self._on_render)

    # ---------------------------------------------------------------- the parts

    def _text(self, text, kind, bold=False, mono=False, frame=False):
        actor = vtkTextActor()
        actor.SetInput(text)
        prop = actor.GetTextProperty()
        prop.SetFontSize(max(int(round(FONT[kind] * self.scale)), 6))
        prop.SetColor(*TEXT_COLOR)
        prop.SetBold(bold)
        if mono:
            prop.SetFontFamilyToCourier()
        if frame:
            prop.SetFrame(True)
            prop.SetFrameColor(*FRAME_COLOR)
            prop.SetFrameWidth(max(int(round(self.scale)), 1))
            prop.SetBackgroundColor(1.0, 1.0, 1.0)
            prop.SetBackgroundOpacity(0.85)
        self.renderer.AddViewProp(actor)
        return actor

    def _bbox(self, actor):
        """(xmin, xmax, ymin, ymax) of a text actor's box relative to its position, pixels."""
        bb = [0.0] * 4
        actor.GetBoundingBox(self.renderer, bb)
        return bb

    def _size(self, actor):
        """(width, height) of a text actor's box, pixels."""
        bb = self._bbox(actor)
        return bb[1] - bb[0], bb[3] - bb[2]

    @staticmethod
    def _place_fixed(actor, x, y, horizontal, vertical):
        prop = actor.GetTextProperty()
        {"left": prop.SetJustificationToLeft, "right": prop.SetJustificationToRight}[horizontal]()
        {"top": prop.SetVerticalJustificationToTop,
         "bottom": prop.SetVerticalJustificationToBottom}[vertical]()
        actor.SetPosition(x, y)

    def set_legend(self, entries):
        """Show the legend ``entries`` [(RGB, text)] (replacing the one shown, unless it is the
        same): swatches with their meaning at the bottom left, in rows of at most the
        picture's width, the first row lowest; none for an empty list."""
        entries = [(tuple(float(c) for c in color), str(text)) for color, text in entries]
        if entries == self.legend_entries:
            return
        for actor in self.legend:
            self.renderer.RemoveViewProp(actor)
        self.legend, self.legend_box = self._build_legend(entries)
        self.legend_entries = entries

    def _build_legend(self, entries):
        """Swatches and texts in rows at the bottom left; returns (actors, their box). A row
        that would run past the picture's right margin wraps onto a row above it."""
        if not entries:
            return [], None
        swatch = FONT["legend"] * self.scale
        pad = 3 * self.scale
        actors = []
        for _, text in entries:
            actor = self._text(text, "legend")
            self._place_fixed(actor, 0.0, 0.0, "left", "bottom")
            actors.append(actor)
        widths = [swatch + pad + self._size(a)[0] for a in actors]
        height = max([swatch] + [self._size(a)[1] for a in actors])
        # rows: as many entries as fit between the margins (at least one)
        rows, row, used = [], [], 0.0
        for k, width in enumerate(widths):
            if row and self.margin + used + width > self.size[0] - self.margin:
                rows.append(row)
                row, used = [], 0.0
            row.append(k)
            used += width + 4 * pad
        rows.append(row)
        quads, colors = [], []
        right = self.margin
        for r, row in enumerate(rows):
            x, y = self.margin, self.margin + r * (height + pad)
            for k in row:
                quads.append([(x, y), (x + swatch, y), (x + swatch, y + swatch),
                              (x, y + swatch)])
                colors.append(entries[k][0])
                actors[k].SetPosition(x + swatch + pad, y - pad / 3)
                x = self._box_of(actors[k])[2] + 4 * pad
            right = max(right, x - 4 * pad)
        boxes = [self._box_of(a) for a in actors]
        top = max(self.margin + (len(rows) - 1) * (height + pad) + swatch,
                  max(b[3] for b in boxes))
        bottom = min(self.margin, min(b[1] for b in boxes))    # a text's descent
        swatches = _Lines2D(self.renderer, (0.0, 0.0, 0.0), filled=True)
        swatches.set(quads, colors)
        return actors + [swatches.actor], (self.margin, bottom, right, top)

    def fixed_boxes(self):
        """Boxes (x0, y0, x1, y1) of the title, subtitle, time stamp and legend, pixels."""
        boxes = [self._box_of(a) for a in (self.title, self.subtitle, self.clock)
                 if a is not None]
        if self.legend_box is not None:
            boxes.append(self.legend_box)
        return boxes

    def _box_of(self, actor):
        """(x0, y0, x1, y1) of a text actor where it stands, pixels."""
        bb = self._bbox(actor)
        x, y = actor.GetPosition()
        return (x + bb[0], y + bb[2], x + bb[1], y + bb[3])

    # ---------------------------------------------------------------- state

    def set_time(self, t):
        """Show ``t = ... s`` (three decimals) at the top right; None hides it."""
        if t is None:
            self.clock.SetVisibility(False)
        else:
            self.clock.SetInput(f"t = {float(t):.3f} s")
            self.clock.SetVisibility(True)

    def set_anchor(self, key, point):
        """The world point (3,) label ``key`` points at; None hides the label."""
        self._anchors[key] = None if point is None else np.asarray(point, float)

    def set_obstacles(self, groups):
        """What labels must not cover: per body, its points (n, 3) in the world (the corners
        of its parts' boxes); each render projects them and keeps every label clear of the
        box round each body's projection."""
        self._obstacles = [np.asarray(points, float).reshape(-1, 3) for points in groups]

    def obstacle_boxes(self):
        """The boxes (x0, y0, x1, y1), display pixels, round the projection of each body
        (:meth:`set_obstacles`) in front of the camera."""
        boxes = []
        for points in self._obstacles:
            shown = [xy for xy, depth in map(self._display, points) if 0.0 <= depth <= 1.0]
            if shown:
                xy = np.array(shown)
                boxes.append((*xy.min(axis=0), *xy.max(axis=0)))
        return [tuple(float(v) for v in box) for box in boxes]

    def set_frame(self, key, color, tint=None):
        """Frame label ``key`` in ``color`` (RGB 0..1), its background ``tint`` (or white)."""
        prop = self.labels[key].GetTextProperty()
        prop.SetFrameColor(*color)
        prop.SetBackgroundColor(*(tint if tint is not None else (1.0, 1.0, 1.0)))

    def relayout(self):
        """Forget the labels' sides (after the camera moved): the next render chooses them
        afresh."""
        self.sides = {key: None for key in self.labels}

    # ---------------------------------------------------------------- placing

    def _display(self, point):
        ren = self.renderer
        ren.SetWorldPoint(point[0], point[1], point[2], 1.0)
        ren.WorldToDisplay()
        x, y, z = ren.GetDisplayPoint()
        return np.array([x, y]), z

    def _on_render(self, *_):
        self.place()

    def place(self):
        """Put every label near the projection of its point, clear of the picture's edges,
        the title, time stamp and legend, the labels placed before it and the bodies
        (:meth:`set_obstacles`): on the first side (:data:`_SIDES`) and the least reach
        (:data:`_REACH`) where it covers none of them (where none is clear, where it covers
        least); the place it had is kept while it stays clear and no other is clearly
        better. A leader line joins the point to the label."""
        w, h = self.size
        gap = 16.0 * self.scale
        taken = self.fixed_boxes()
        bodies = self.obstacle_boxes()
        points = {}
        for key, anchor in self._anchors.items():
            if anchor is not None:
                xy, depth = self._display(anchor)
                if 0.0 <= depth <= 1.0:          # in front of the camera
                    points[key] = xy
        dots = [(p[0] - 5 * self.scale, p[1] - 5 * self.scale, p[0] + 5 * self.scale,
                 p[1] + 5 * self.scale) for p in points.values()]
        places = [(side, reach) for reach in _REACH for side in _SIDES]
        # preference of each place, in label areas: a tenth per step of reach, ties by side
        order = np.array([0.1 * _REACH.index(reach) + 1e-5 * _SIDES.index(side)
                          for side, reach in places])
        segments = []
        for key, actor in self.labels.items():
            if key not in points:
                actor.SetVisibility(False)
                self.sides[key] = None
                continue
            bb = self._bbox(actor)       # labels keep the default left/bottom justification
            size = (bb[1] - bb[0], bb[3] - bb[2])
            area = size[0] * size[1]
            point = points[key]

            # every place at once: its box, the area it covers that must stay clear (beyond
            # the picture counted 4 times) and how little it is liked (other labels' points
            # covered, reach, side order)
            boxes = np.array([label_box(point, side, size, gap * reach)
                              for side, reach in places])
            off = area - _covered(boxes, [(0.0, 0.0, float(w), float(h))])
            covered = 4.0 * off + _covered(boxes, taken) + _covered(boxes, bodies)
            liked = 0.5 * _covered(boxes, dots) + order * area
            clear = np.flatnonzero(covered <= CLEAR)
            best = int(clear[np.argmin(liked[clear])] if clear.size
                       else np.argmin(covered + liked))
            costs = {place: (covered[k], liked[k]) for k, place in enumerate(places)}
            best = places[best]
            current = self.sides[key]
            if current is not None and current in costs:
                kept = (costs[current][0] <= CLEAR and
                        costs[current][1] <= costs[best][1] + 0.2 * area)
                current = current if kept else best
            else:
                current = best
            self.sides[key] = current
            box = label_box(point, current[0], size, gap * current[1])
            actor.SetPosition(box[0] - bb[0], box[1] - bb[2])
            actor.SetVisibility(True)
            taken.append(box)
            segments.append(_leader(point, box, LEADER_GAP * self.scale))
        self._leaders.set(segments)

    def close(self):
        """Stop following renders."""
        self.renderer.RemoveObserver(self._observer)
