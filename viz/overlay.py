"""Text over a scene's picture: a title, a time stamp, a label per force element joined to it
by a leader line, and a legend of the contact colours.

Everything here is in display pixels (origin at the bottom left). The scene says which world
point each label points at; every render projects those points with that render's camera
(a renderer ``StartEvent`` observer), so labels follow the motion and, in a window, the
camera. A label keeps the side of its point it was put on until another side is clearly
freer (hysteresis), so labels do not jump between frames.
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

# sides a label may take around its point: (dx, dy) in {-1, 0, 1}, in order of preference
_SIDES = ((1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))


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


def _nearest_on_box(point, box):
    return (min(max(point[0], box[0]), box[2]), min(max(point[1], box[1]), box[3]))


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
        Colour swatches with their meaning, in a row at the bottom left; empty: none.

    Attributes
    ----------
    title, subtitle, clock : vtkTextActor or None
    legend : list
        The legend's actors (texts, then the swatches); empty without a legend.
    legend_box : (x0, y0, x1, y1) or None
        Where the legend is, pixels.
    labels : dict
        key -> the label's vtkTextActor.
    sides : dict
        key -> the side (dx, dy) of its point each label is on, or None while hidden.
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
        self.legend, self.legend_box = self._build_legend(legend)
        self.labels = {key: self._text(text, "label", frame=True) for key, text in labels}
        self.sides = {key: None for key in self.labels}
        self._anchors = {key: None for key in self.labels}
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

    def _build_legend(self, entries):
        """Swatches and texts in a row at the bottom left; returns (actors, their box)."""
        if not entries:
            return [], None
        x = y = self.margin
        swatch = FONT["legend"] * self.scale
        pad = 3 * self.scale
        quads, colors, actors = [], [], []
        top = y + swatch
        for color, text in entries:
            quads.append([(x, y), (x + swatch, y), (x + swatch, y + swatch), (x, y + swatch)])
            colors.append(color)
            actor = self._text(text, "legend")
            self._place_fixed(actor, x + swatch + pad, y - pad / 3, "left", "bottom")
            actors.append(actor)
            box = self._box_of(actor)
            top = max(top, box[3])
            x = box[2] + 4 * pad
        swatches = _Lines2D(self.renderer, (0.0, 0.0, 0.0), filled=True)
        swatches.set(quads, colors)
        return actors + [swatches.actor], (self.margin, self.margin, x - 4 * pad, top)

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
        """Put every label beside the projection of its point, on the freest side (kept
        unless another is clearly freer), with a leader line from the point to the label."""
        w, h = self.size
        gap = 16.0 * self.scale
        taken = self.fixed_boxes()
        points = {}
        for key, anchor in self._anchors.items():
            if anchor is not None:
                xy, depth = self._display(anchor)
                if 0.0 <= depth <= 1.0:          # in front of the camera
                    points[key] = xy
        dots = [(p[0] - 5 * self.scale, p[1] - 5 * self.scale, p[0] + 5 * self.scale,
                 p[1] + 5 * self.scale) for p in points.values()]
        segments = []
        for key, actor in self.labels.items():
            if key not in points:
                actor.SetVisibility(False)
                self.sides[key] = None
                continue
            bb = self._bbox(actor)       # labels keep the default left/bottom justification
            size = (bb[1] - bb[0], bb[3] - bb[2])
            point = points[key]

            def cost(side):
                box = label_box(point, side, size, gap)
                inside = _box_overlap(box, (0.0, 0.0, float(w), float(h)))
                off = size[0] * size[1] - inside
                return (4.0 * off + sum(_box_overlap(box, b) for b in taken)
                        + 0.5 * sum(_box_overlap(box, d) for d in dots))

            costs = {side: cost(side) for side in _SIDES}
            best = min(_SIDES, key=lambda s: costs[s])   # ties: the earlier side
            current = self.sides[key]
            if current is None or costs[best] < costs[current] - 0.2 * size[0] * size[1]:
                current = best
            self.sides[key] = current
            box = label_box(point, current, size, gap)
            actor.SetPosition(box[0] - bb[0], box[1] - bb[2])
            actor.SetVisibility(True)
            taken.append(box)
            segments.append([tuple(point), _nearest_on_box(point, box)])
        self._leaders.set(segments)

    def close(self):
        """Stop following renders."""
        self.renderer.RemoveObserver(self._observer)
