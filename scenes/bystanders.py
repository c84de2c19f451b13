"""Bystanders drawn once an animation, not every frame (issue 42).

Manim draws what stands still during an animation into one picture and redraws the rest every
frame: every shape from the first animated one on, in drawing order, since a shape drawn later might
cover an animated one. In a crowded picture many of those are bystanders, shapes that do not change:
over the explainer at 480p15, 31 % of the shapes drawn frame by frame (chapter 8: 58 %).

Here the bystanders go into the still picture too, but for those an animated shape might touch: a
bystander is redrawn each frame when it comes near a shape drawn that frame which Manim draws before
it (an animated shape, or another bystander being redrawn). "Near" is measured on boxes: each shape's
points, which hold its curves, grown by how far its stroke can reach past them (a miter corner: 5
line widths) and two pixels of antialiasing. Every pixel then sees the shapes that touch it in
Manim's order: the frame is Manim's own, pixel for pixel (tests/test_bystanders.py renders frames
both ways).

The picture is drawn again when a frame needs a bystander redrawn that it holds, at most
PICTURES times an animation; after that, and in an animation that moves the camera or draws anything
but shapes and images (or with a camera other than Manim's Camera and MovingCamera, or the explainer's
ExplainerCamera), Manim draws every frame its own way.
"""

from __future__ import annotations

import numpy as np
from manim import AnimationGroup, Camera, ImageMobject, Mobject, MovingCamera, Scene, VMobject

from scenes.camera import ExplainerCamera

ANTIALIAS_PIXELS = 2
MITER_REACH = 5  # line widths: how far Cairo's default miter limit (10) lets a corner reach past its point
LINE_WIDTH_PER_STROKE = 0.01  # Manim draws stroke width w as a line w / 100 of a unit wide
PICTURES = 4  # still pictures an animation may draw


def animated(scene: Scene) -> set[Mobject]:
    """What may change while the scene's animations run, as Manim's own choice of what to redraw sees it:
    the animations' mobjects, mobjects with updaters and foreground mobjects, with their families."""
    changing: set[Mobject] = set()

    def add_animations(animations) -> None:
        for animation in animations:
            changing.update(animation.mobject.get_family())
            if isinstance(animation, AnimationGroup):
                add_animations(animation.animations)

    add_animations(scene.animations)
    for mobject in scene.get_mobject_family_members():
        if mobject.updaters or mobject in scene.foreground_mobjects:
            changing.update(mobject.get_family())
    return changing


def reach(shape: Mobject) -> float:
    """How far a shape's ink can reach past its points, in the scene's units."""
    if not isinstance(shape, VMobject):
        return 0.0
    widest = max(shape.get_stroke_width(), shape.get_stroke_width(background=True))
    return widest * LINE_WIDTH_PER_STROKE * MITER_REACH


def boxes(shapes: list[Mobject], margin: float) -> np.ndarray:
    """Each shape's box as a row (left, bottom, right, top), grown by its reach and ``margin``; a shape
    without points (it draws nothing) gets a box that meets none."""
    found = np.full((len(shapes), 4), [np.inf, np.inf, -np.inf, -np.inf])
    inked = [i for i, shape in enumerate(shapes) if len(shape.points)]
    if not inked:
        return found
    counts = np.array([len(shapes[i].points) for i in inked])
    corners = np.concatenate([shapes[i].points[:, :2] for i in inked])
    starts = np.cumsum(counts) - counts
    grow = (np.array([reach(shapes[i]) for i in inked]) + margin)[:, None]
    found[inked, :2] = np.minimum.reduceat(corners, starts) - grow
    found[inked, 2:] = np.maximum.reduceat(corners, starts) + grow
    return found


def meeting(these: np.ndarray, those: np.ndarray) -> np.ndarray:
    """Which boxes of ``these`` (rows) meet which of ``those`` (columns)."""
    return (
        (these[:, None, 0] <= those[None, :, 2])
        & (these[:, None, 2] >= those[None, :, 0])
        & (these[:, None, 1] <= those[None, :, 3])
        & (these[:, None, 3] >= those[None, :, 1])
    )


class OneAnimation:
    """An animation's shapes in Manim's drawing order, split into the animated and the bystanders; the
    bystanders redrawn each frame (``redrawn``) and the still picture holding the others."""

    def __init__(self, scene: Scene):
        renderer = scene.renderer
        camera = renderer.camera
        self.play = renderer.num_plays
        self.manims = scene.moving_mobjects
        self.manims_picture = renderer.static_image
        self.picture = None
        self.pictures = 0
        self.bystanders: list[Mobject] = []
        if type(camera) not in (Camera, MovingCamera, ExplainerCamera):
            return  # another camera may move points before drawing them (a 3D one does)
        drawn = camera.get_mobjects_to_display(self.manims)
        if not all(isinstance(shape, VMobject | ImageMobject) for shape in drawn):
            return
        changing = animated(scene)
        if isinstance(camera, MovingCamera) and camera.frame in changing:
            return  # the camera moves: every shape moves on the screen
        is_animated = np.array([shape in changing for shape in drawn], dtype=bool)
        if is_animated.all() or not is_animated.any():
            return
        self.drawn, self.is_animated = drawn, is_animated
        self.animated = [shape for shape, moves in zip(drawn, is_animated) if moves]
        self.bystanders = [shape for shape, moves in zip(drawn, is_animated) if not moves]
        self.animated_order = np.flatnonzero(is_animated)
        self.bystander_order = np.flatnonzero(~is_animated)
        self.margin = ANTIALIAS_PIXELS * camera.frame_width / camera.pixel_width
        self.bystander_boxes = boxes(self.bystanders, self.margin)
        self.covers = meeting(self.bystander_boxes, self.bystander_boxes) & (
            self.bystander_order[None, :] > self.bystander_order[:, None]
        )  # covers[i, j]: bystander j is drawn after bystander i and near it
        self.redrawn = np.zeros(len(self.bystanders), dtype=bool)

    def to_redraw(self) -> np.ndarray:
        """The bystanders this frame must redraw: near an animated shape drawn before them, or near one
        of these drawn before them."""
        near = meeting(boxes(self.animated, self.margin), self.bystander_boxes) & (
            self.bystander_order[None, :] > self.animated_order[:, None]
        )
        chosen = near.any(axis=0)
        while True:
            more = chosen | self.covers[chosen].any(axis=0)
            if (more == chosen).all():
                return chosen
            chosen = more

    def frame(self, scene: Scene) -> list[Mobject]:
        """What to draw for this frame (the animations set to it), over the picture it starts from."""
        renderer = scene.renderer
        if self.bystanders:
            needed = self.to_redraw()
            if self.picture is None or (needed & ~self.redrawn).any():
                self.draw_picture(scene, self.redrawn | needed)
        if not self.bystanders:
            renderer.static_image = self.manims_picture
            return self.manims
        renderer.static_image = self.picture
        return self.shapes

    def draw_picture(self, scene: Scene, redrawn: np.ndarray) -> None:
        """Manim's still picture with the bystanders not in ``redrawn`` drawn in; or, when the
        animation has had PICTURES or the shapes left to draw each frame are not what Manim would draw
        of them, none: Manim draws every frame from then on."""
        renderer = scene.renderer
        drawn_each_frame = self.is_animated.copy()
        drawn_each_frame[self.bystander_order[redrawn]] = True
        shapes = [shape for shape, each in zip(self.drawn, drawn_each_frame) if each]
        if self.pictures == PICTURES or renderer.camera.get_mobjects_to_display(shapes) != shapes:
            self.bystanders = []
            return
        kept = [shape for shape, each in zip(self.bystanders, redrawn) if not each]
        picture = self.manims_picture
        if kept:  # (given none, Manim's update_frame would draw every mobject in the scene)
            renderer.static_image = self.manims_picture
            renderer.update_frame(scene, mobjects=kept, include_submobjects=False)
            picture = renderer.get_frame()
        self.picture, self.shapes, self.redrawn = picture, shapes, redrawn
        self.pictures += 1


class DrawsBystandersOnce(Scene):
    """A Scene (Cairo) whose animations draw their bystanders once, not every frame."""

    one_animation: OneAnimation | None = None

    def update_to_time(self, t: float) -> None:
        super().update_to_time(t)
        if self.one_animation is None or self.one_animation.play != self.renderer.num_plays:
            self.one_animation = OneAnimation(self)
        self.moving_mobjects = self.one_animation.frame(self)
