"""The report's figures drawn with QPainter from the report's own numbers: curves, points and bands on
linear or log axes, and heat maps (used by the PDF, testable on their own)."""

from __future__ import annotations

import itertools
import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)

from privacy_studio.core.numbers import number, share
from privacy_studio.core.report import HeatmapFigure, PlotFigure
from privacy_studio.rendering.label_place import LabelPlacer

#: Figures are drawn on a logical canvas of this size, scaled onto an image of FIGURE_SCALE times it.
CANVAS_W, CANVAS_H = 1000.0, 560.0
FIGURE_SCALE = 2.4
PALETTE = [
    "#1f5fa8", "#d1495b", "#2a9d8f", "#e9a03b", "#6a4c93", "#8c564b",
    "#3d8a3d", "#c2528b", "#5f6b73", "#a3a322", "#17a5c4", "#e0672c",
]  # fmt: skip


def render_figure(figure: PlotFigure | HeatmapFigure) -> QImage:
    """Draw a figure of the report on a white image (testable on its own; the PDF paints it as vectors)."""
    image = QImage(
        int(CANVAS_W * FIGURE_SCALE), int(figure_height(figure) * FIGURE_SCALE), QImage.Format.Format_RGB32
    )
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    try:
        paint_figure(painter, figure, QRectF(0, 0, image.width(), image.height()))
    finally:
        painter.end()
    return image


def figure_height(figure: PlotFigure | HeatmapFigure) -> float:
    """Height of the figure's logical canvas (its width is :data:`CANVAS_W`)."""
    return CANVAS_H if isinstance(figure, PlotFigure) else _heatmap_height(figure)


def paint_figure(painter: QPainter, figure: PlotFigure | HeatmapFigure, rect: QRectF) -> None:
    """Draw the figure into ``rect`` of any paint device, scaled from its canvas (fonts are in pixels, so
    they scale with it): the PDF paints figures as vectors, not as images it would have to compress."""
    painter.save()
    try:
        painter.translate(rect.topLeft())
        painter.scale(rect.width() / CANVAS_W, rect.height() / figure_height(figure))
        if isinstance(figure, PlotFigure):
            _Plot(painter, figure).draw()
        else:
            _draw_heatmap(painter, figure)
    finally:
        painter.restore()


def _font(size: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setPixelSize(max(1, round(size)))
    font.setBold(bold)
    return font


def nice_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick values covering [lo, hi] with about ``target`` steps of 1, 2 or 5 x 10^k."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten within [lo, hi] (with 2 and 5 multiples when the range spans under three decades)."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if b - a <= 3 else (1,)
    ticks = [m * 10.0**k for k in range(a, b + 1) for m in mults]
    return [t for t in ticks if lo * 0.999 <= t <= hi * 1.001] or [lo, hi]


def _tick_text(value: float, percent: bool) -> str:
    """An axis tick through the one formatter: a share as a percentage, anything else in plain decimals."""
    return share(value) if percent else number(value)


class _Plot:
    """An x-y plot with axes, ticks, grid, bands, lines, points with labels, and a legend below."""

    def __init__(self, painter: QPainter, figure: PlotFigure) -> None:
        self.p = painter
        self.f = figure
        self.legend_rows = math.ceil(len(figure.series) / 4) if len(figure.series) > 1 else 0
        self.placed: list[QRectF] = []  # point labels drawn so far
        self.segments: list[QLineF] = []  # the drawn lines, which labels keep off
        self.area = QRectF(86, 20, CANVAS_W - 110, CANVAS_H - 90 - 22 * self.legend_rows)
        xs = [v for s in figure.series for v in s.x if _ok(v, figure.log_x)]
        ys = [v for s in figure.series for v in (*s.y, *(s.lo or []), *(s.hi or [])) if _ok(v, figure.log_y)]
        self.x_range = _padded(xs, figure.log_x)
        self.y_range = _padded(ys, figure.log_y, floor_zero=figure.percent_y)

    def sx(self, v: float) -> float:
        t = _fraction(v, self.x_range, self.f.log_x)
        return self.area.left() + (1 - t if self.f.reverse_x else t) * self.area.width()

    def sy(self, v: float) -> float:
        t = _fraction(v, self.y_range, self.f.log_y)
        return self.area.bottom() - t * self.area.height()

    def draw(self) -> None:
        self.axes()
        self.placed = [
            self._marker(x, y) for s in self.f.series if s.labels for x, y in zip(s.x, s.y, strict=True)
        ]
        self.segments = [
            segment for s in self.f.series if s.mode in ("line", "dashed") for segment in self._segments(s)
        ]
        colors = {}
        for i, s in enumerate(self.f.series):
            color = (
                QColor("#9a9a9a")
                if s.mode == "dashed" and s.name == "risk ceiling"
                else QColor(PALETTE[i % len(PALETTE)])
            )
            colors[s.name] = color
            self.series(s, color)
        self.legend(colors)

    def axes(self) -> None:
        p, a, f = self.p, self.area, self.f
        p.setFont(_font(13))
        fm = QFontMetricsF(p.font())
        xt = log_ticks(*self.x_range) if f.log_x else nice_ticks(*self.x_range)
        yt = log_ticks(*self.y_range) if f.log_y else nice_ticks(*self.y_range)
        for t in xt:
            x = self.sx(t)
            p.setPen(QPen(QColor("#e6e6e6"), 1))
            p.drawLine(QPointF(x, a.top()), QPointF(x, a.bottom()))
            p.setPen(QColor("#333333"))
            label = _tick_text(t, f.percent_x)
            p.drawText(QPointF(x - fm.horizontalAdvance(label) / 2, a.bottom() + 18), label)
        for t in yt:
            y = self.sy(t)
            p.setPen(QPen(QColor("#e6e6e6"), 1))
            p.drawLine(QPointF(a.left(), y), QPointF(a.right(), y))
            p.setPen(QColor("#333333"))
            label = _tick_text(t, f.percent_y)
            p.drawText(QPointF(a.left() - 8 - fm.horizontalAdvance(label), y + 5), label)
        p.setPen(QPen(QColor("#333333"), 1.4))
        p.drawRect(a)
        p.setFont(_font(14, bold=True))
        fm = QFontMetricsF(p.font())
        p.drawText(QPointF(a.center().x() - fm.horizontalAdvance(f.x_label) / 2, a.bottom() + 42), f.x_label)
        p.save()
        p.translate(20, a.center().y() + fm.horizontalAdvance(f.y_label) / 2)
        p.rotate(-90)
        p.drawText(QPointF(0, 0), f.y_label)
        p.restore()

    def series(self, s, color: QColor) -> None:
        p, f = self.p, self.f
        pts = [(x, y) for x, y in zip(s.x, s.y, strict=True) if _ok(x, f.log_x) and _ok(y, f.log_y)]
        if s.lo is not None and s.hi is not None:
            band = [
                (x, lo, hi)
                for x, lo, hi in zip(s.x, s.lo, s.hi, strict=True)
                if _ok(x, f.log_x) and _ok(lo, f.log_y) and _ok(hi, f.log_y)
            ]
            if len(band) > 1:
                poly = QPolygonF(
                    [QPointF(self.sx(x), self.sy(hi)) for x, _, hi in band]
                    + [QPointF(self.sx(x), self.sy(lo)) for x, lo, _ in reversed(band)]
                )
                fill = QColor(color)
                fill.setAlpha(40)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(fill)
                p.drawPolygon(poly)
        p.setBrush(Qt.BrushStyle.NoBrush)
        if s.mode in ("line", "dashed") and len(pts) > 1:
            pen = QPen(color, 2.2)
            if s.mode == "dashed":
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            path = QPainterPath(QPointF(self.sx(pts[0][0]), self.sy(pts[0][1])))
            for x, y in pts[1:]:
                path.lineTo(self.sx(x), self.sy(y))
            p.drawPath(path)
        if s.mode == "points" or (s.mode == "line" and len(pts) <= 20):  # dense curves: no markers
            p.setPen(QPen(color.darker(130), 1.2))
            p.setBrush(color if s.mode == "line" else QColor("white"))
            for x, y in pts:
                p.drawEllipse(QPointF(self.sx(x), self.sy(y)), 4.5, 4.5)
        if s.labels:
            self.point_labels(s)

    def _marker(self, x: float, y: float) -> QRectF:
        """The square a point's marker covers (labels keep off it); empty for points off the axes."""
        if not (_ok(x, self.f.log_x) and _ok(y, self.f.log_y)):
            return QRectF()
        return QRectF(self.sx(x) - 5, self.sy(y) - 5, 10, 10)

    def point_labels(self, s) -> None:
        """Name each point beside it (``label_place``: right, left, above, below, ...); a name that would
        cover another name, a point or a line is left out (the tables give every profile)."""
        p, f = self.p, self.f
        p.setFont(_font(11.5))
        fm = QFontMetricsF(p.font())
        p.setPen(QColor("#222222"))
        placer = LabelPlacer(self.area, self.placed, self.segments)
        for x, y, label in zip(s.x, s.y, s.labels, strict=True):
            if not (_ok(x, f.log_x) and _ok(y, f.log_y)):
                continue
            rect = placer.place(self.sx(x), self.sy(y), fm.horizontalAdvance(label), fm.height())
            if rect is not None:
                p.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)

    def _segments(self, s) -> list[QLineF]:
        """The pieces of a drawn line, in canvas coordinates."""
        f = self.f
        pts = [
            QPointF(self.sx(x), self.sy(y))
            for x, y in zip(s.x, s.y, strict=True)
            if _ok(x, f.log_x) and _ok(y, f.log_y)
        ]
        return [QLineF(a, b) for a, b in itertools.pairwise(pts)]

    def legend(self, colors: dict[str, QColor]) -> None:
        if len(self.f.series) < 2:
            return
        p = self.p
        p.setFont(_font(12.5))
        fm = QFontMetricsF(p.font())
        col_w = (CANVAS_W - 40) / 4
        top = self.area.bottom() + 58
        for k, s in enumerate(self.f.series):
            x = 30 + (k % 4) * col_w
            y = top + (k // 4) * 22
            pen = QPen(colors[s.name], 3)
            if s.mode == "dashed":
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            if s.mode == "points":
                p.setBrush(QColor("white"))
                p.drawEllipse(QPointF(x + 12, y - 4), 4.5, 4.5)
            else:
                p.drawLine(QPointF(x, y - 4), QPointF(x + 24, y - 4))
            p.setPen(QColor("#222222"))
            p.drawText(QPointF(x + 32, y + 1), fm.elidedText(s.name, Qt.TextElideMode.ElideRight, col_w - 40))


def _fraction(v: float, span: tuple[float, float], log: bool) -> float:
    """Where ``v`` lies between the ends of an axis, 0 to 1 (on a log scale when ``log``)."""
    lo, hi = (math.log10(x) for x in span) if log else span
    return ((math.log10(v) if log else v) - lo) / (hi - lo)


def _ok(v: float | None, log: bool) -> bool:
    return v is not None and math.isfinite(v) and (v > 0 or not log)


def _padded(values: list[float], log: bool, floor_zero: bool = False) -> tuple[float, float]:
    """Axis range covering ``values`` with a margin (multiplicative on log axes)."""
    if not values:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(values), max(values)
    if log:
        if hi <= lo:
            return lo / 2, hi * 2
        return lo / 1.25, hi * 1.25
    if hi <= lo:
        lo, hi = lo - 0.5 * (abs(lo) or 1), hi + 0.5 * (abs(hi) or 1)
    pad = 0.06 * (hi - lo)
    lo = 0.0 if floor_zero and lo >= 0 and lo - pad < 0.2 * (hi - lo) else lo - pad
    return lo, hi + pad


def _heatmap_height(figure: HeatmapFigure) -> float:
    return 120 + 46 * max(1, len(figure.row_labels))


def _draw_heatmap(p: QPainter, figure: HeatmapFigure) -> None:
    """Cells coloured from white (lowest) to dark red (highest), each with its value written in it."""
    values = [v for row in figure.values for v in row if v is not None and math.isfinite(v)]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    left, top, cell_h = 190.0, 50.0, 46.0
    cell_w = min(150.0, (CANVAS_W - left - 30) / max(1, len(figure.col_labels)))
    p.setFont(_font(13, bold=True))
    p.setPen(QColor("#333333"))
    p.drawText(QPointF(left, 22), figure.col_title)
    p.drawText(QPointF(10, 22), figure.row_title)
    p.setFont(_font(13))
    fm = QFontMetricsF(p.font())
    for j, label in enumerate(figure.col_labels):
        x = left + j * cell_w + (cell_w - fm.horizontalAdvance(label)) / 2
        p.drawText(QPointF(x, top - 8), label)
    for i, label in enumerate(figure.row_labels):
        y = top + i * cell_h
        p.setPen(QColor("#333333"))
        p.drawText(
            QRectF(10, y, left - 20, cell_h),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
            label,
        )
        for j in range(len(figure.col_labels)):
            rect = QRectF(left + j * cell_w, y, cell_w, cell_h)
            v = figure.values[i][j]
            t = 0.0 if v is None or hi <= lo else (v - lo) / (hi - lo)
            color = QColor("#f2f2f2") if v is None else _heat(t)
            p.fillRect(rect, color)
            p.setPen(QPen(QColor("white"), 2))
            p.drawRect(rect)
            p.setPen(QColor("white") if v is not None and t > 0.55 else QColor("#1b1b1b"))
            text = figure.cell_text[i][j] if v is not None else "not computed"
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    # colour scale
    y = top + len(figure.row_labels) * cell_h + 24
    width = cell_w * len(figure.col_labels)
    for k in range(100):
        p.fillRect(QRectF(left + k * width / 100, y, width / 100 + 0.5, 12), _heat(k / 99))
    p.setPen(QColor("#333333"))
    p.setFont(_font(12))
    lo_text = next(
        (figure.cell_text[i][j] for i, row in enumerate(figure.values) for j, v in enumerate(row) if v == lo),
        "",
    )
    hi_text = next(
        (figure.cell_text[i][j] for i, row in enumerate(figure.values) for j, v in enumerate(row) if v == hi),
        "",
    )
    p.drawText(QPointF(left, y + 30), f"lowest {lo_text}")
    label = f"highest {hi_text}"
    p.drawText(QPointF(left + width - QFontMetricsF(p.font()).horizontalAdvance(label), y + 30), label)


def _heat(t: float) -> QColor:
    """White-yellow-orange-dark red ramp for t in [0, 1]."""
    stops = [(0.0, (255, 250, 235)), (0.35, (253, 200, 110)), (0.7, (227, 100, 60)), (1.0, (140, 20, 30))]
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in itertools.pairwise(stops):
        if t <= t1:
            u = (t - t0) / (t1 - t0)
            return QColor(*(round(a + u * (b - a)) for a, b in zip(c0, c1, strict=True)))
    return QColor(*stops[-1][1])
