"""Where a point's name goes on a plot, without covering another name, a point or a drawn line: the report's
figures and the window's Pareto plot place their labels with the same rule (issue #27)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QLineF, QRectF

#: Pixels between a point's centre and its name.
GAP = 7.0


def spots(px: float, py: float, w: float, h: float) -> list[QRectF]:
    """The places a ``w`` × ``h`` name of the point at (``px``, ``py``) may take, in the order tried: right,
    left, above, below, then beside at other heights and higher above."""
    right, left, centre = px + GAP, px - GAP - w, px - w / 2
    corners = [(right, py - h), (left, py - h), (centre, py - h - 6), (centre, py + 6), (right, py)]
    corners += [(left, py), (right, py - h / 2), (left, py - h / 2), (centre, py - 2 * h - 6)]
    return [QRectF(x0, top, w, h) for x0, top in corners]


def crosses(rect: QRectF, segment: QLineF) -> bool:
    """Whether a line segment passes through a rectangle (or ends inside it)."""
    p1, p2 = segment.p1(), segment.p2()
    if max(p1.x(), p2.x()) < rect.left() or min(p1.x(), p2.x()) > rect.right():
        return False  # beside it: the edge tests below (four Qt calls) are only for segments near it
    if max(p1.y(), p2.y()) < rect.top() or min(p1.y(), p2.y()) > rect.bottom():
        return False
    if rect.contains(p1) or rect.contains(p2):
        return True
    corners = [rect.topLeft(), rect.topRight(), rect.bottomRight(), rect.bottomLeft()]
    edges = [QLineF(a, b) for a, b in zip(corners, corners[1:] + corners[:1], strict=True)]
    return any(segment.intersects(edge)[0] == QLineF.IntersectionType.BoundedIntersection for edge in edges)


@dataclass
class LabelPlacer:
    """The plot's area, what labels must keep off (markers, names placed so far, line segments), and the
    first free spot of each new name."""

    area: QRectF
    placed: list[QRectF] = field(default_factory=list)
    segments: list[QLineF] = field(default_factory=list)

    def free(self, rect: QRectF) -> bool:
        """Whether a name may go in ``rect``: inside the area, off every marker, name and line."""
        if not self.area.contains(rect) or any(rect.intersects(r) for r in self.placed):
            return False
        return not any(crosses(rect, segment) for segment in self.segments)

    def place(self, px: float, py: float, w: float, h: float) -> QRectF | None:
        """The first free spot for a name of the point at (``px``, ``py``), kept as taken; None when every
        spot is taken (the name is left out: the tables give every point)."""
        rect = next((r for r in spots(px, py, w, h) if self.free(r)), None)
        if rect is not None:
            self.placed.append(rect)
        return rect
