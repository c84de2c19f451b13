"""What the pipeline makes of rendered clips: facts (duration, frames, digest), key frames, the
joined explainer, the contact sheet, burned-in subtitles, GIFs, section clips and PNG frames.
Each is one ffmpeg or file operation on finished files."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from scenes import soundtrack
from scenes.theme import Theme


def probe(path: Path) -> dict:
    """Duration (s) and frame count of a clip, from ffprobe."""
    result = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-count_packets",
            "-show_entries",
            "stream=nb_read_packets:format=duration",
            "-of",
            "json",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(result.stdout)
    return {"duration": float(data["format"]["duration"]), "frames": int(data["streams"][0]["nb_read_packets"])}


def key_frame(clip: Path, target: Path) -> None:
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-sseof",
            "-0.5",
            "-i",
            str(clip),
            "-frames:v",
            "1",
            "-update",
            "1",
            str(target),
        ],
        check=True,
    )


def join_clips(clips: list[Path], chapters: list[dict], target: Path, work: Path, silent: bool = False) -> None:
    """The whole explainer: the clips joined, with a chapter marker at each chapter's start. ``silent``:
    no clip has sound, so none is probed for it."""
    listing = work / "clips.txt"
    listing.write_text("".join(f"file '{c}'\n" for c in clips))
    metadata = work / "chapters.txt"
    lines, start = [";FFMETADATA1"], 0.0
    for chapter in chapters:
        end = start + chapter["duration"]
        lines += [
            "[CHAPTER]",
            "TIMEBASE=1/1000",
            f"START={int(start * 1000)}",
            f"END={int(end * 1000)}",
            f"title={chapter['title']}",
        ]
        start = end
    metadata.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sound = []
    if not silent and any(soundtrack.has_sound(clip) for clip in clips):  # one continuous track, laid sample-exact
        track = work / "explainer-track.wav"
        soundtrack.joined_track(clips, [c["duration"] for c in chapters], track)
        sound = [
            "-i",
            str(track),
            "-map",
            "0:v",
            "-map",
            "2:a",
            *soundtrack.AUDIO_CODECS[target.suffix.lstrip(".")],
            "-shortest",
        ]
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "concat",
            "-safe",
            "0",
            "-i",
            str(listing),
            "-i",
            str(metadata),
            *sound,
            "-map_metadata",
            "1",
            "-map_chapters",
            "1",
            "-c:v",
            "copy",
            str(target),
        ],
        check=True,
    )


SHEET_COLUMNS = 4


def sheet_layout(count: int, fill: str = "black") -> str:
    """ffmpeg's filter placing ``count`` equal frames in rows of SHEET_COLUMNS, left to right."""
    if count == 1:
        return "null"
    places = []
    for i in range(count):
        row, column = divmod(i, SHEET_COLUMNS)
        places.append(f"{'+'.join(['w0'] * column) or 0}_{'+'.join(['h0'] * row) or 0}")
    return f"xstack=inputs={count}:layout={'|'.join(places)}:fill={fill}"


def contact_sheet(frames: list[Path], target: Path, fill: str = "black") -> None:
    """The chapters' key frames in a grid, at half size; an empty cell in the ``fill`` colour."""
    inputs = [arg for frame in frames for arg in ("-i", str(frame))]
    layout = sheet_layout(len(frames), fill)
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            *inputs,
            "-filter_complex",
            f"{layout},scale=iw/2:-1",
            "-frames:v",
            "1",
            "-update",
            "1",
            str(target),
        ],
        check=True,
    )


def burn_subtitles(clip: Path, srt: Path, target: Path, work: Path, theme: Theme) -> None:
    """The clip with its narration drawn in (for players that ignore .srt files): a band in the
    background colour is added below the picture, so that no line ever covers the drawing, and the
    line is written in it in the theme's font and text colour."""
    local = work / f"burn-{target.stem}.srt"  # a plain path: the subtitles filter parses its argument
    shutil.copy(srt, local)
    style = (
        f"FontName={theme.font},FontSize=14,PrimaryColour={ass_colour(theme.text)},"
        f"OutlineColour={ass_colour(theme.background)},BorderStyle=1,Outline=1,Shadow=0,MarginV=9"
    )
    band = f"pad=iw:ih+2*trunc(ih/16):0:0:color={theme.background}"  # ⅛ of the height, kept even
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-i",
            str(clip),
            "-vf",
            f"{band},subtitles={local}:force_style='{style}'",
            "-c:a",
            "copy",
            str(target),
        ],
        check=True,
    )


GIF_WIDTH, GIF_FPS = 640, 10  # about 2 MB for a 45-second chapter; Manim's own GIF at 480p15 is ~30× that


def make_gif(clip: Path, target: Path) -> None:
    """A GIF small enough for slides and documents: 640 px wide, 10 frames a second, one palette."""
    graph = (
        f"fps={GIF_FPS},scale='min({GIF_WIDTH},iw)':-2:flags=lanczos,split[a][b];"
        "[a]palettegen=max_colors=128:stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle"
    )
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(clip), "-vf", graph, str(target)], check=True)


def ass_colour(hex_colour: str) -> str:
    """#RRGGBB as an ASS subtitle colour, &H00BBGGRR."""
    return f"&H00{hex_colour[5:7]}{hex_colour[3:5]}{hex_colour[1:3]}".upper()


def stage_sections(sections: Path, folder: Path, track: Path | None = None) -> None:
    """A chapter's section clips, named by step, with index.json: [{name, file, duration}]; each with
    its stretch of the chapter's sound ``track``, if it has one."""
    folder.mkdir()
    listing = json.loads(next(sections.glob("*.json")).read_text(encoding="utf-8"))
    index, start = [], 0.0
    for number, section in enumerate(listing, start=1):
        source = sections / section["video"]
        name = f"{number:02d}-{section['name'].split('-', 1)[-1]}{source.suffix}"
        duration = float(section["duration"])
        if track is None:
            shutil.copy(source, folder / name)
        else:
            soundtrack.with_sound(source, track, folder / name, start, duration)
        start += duration
        index.append({"name": section["name"], "file": name, "duration": duration})
    (folder / "index.json").write_text(
        json.dumps({"sections": index, "duration": sum(s["duration"] for s in index)}, ensure_ascii=False, indent=1)
        + "\n",
        encoding="utf-8",
    )


def frames(clip: Path, folder: Path) -> None:
    folder.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(clip), str(folder / "frame-%04d.png")], check=True)


def file_digest(path: Path) -> str:
    """sha256 of a file, or of a folder's files (png frames) in name order."""
    digest = hashlib.sha256()
    for part in sorted(path.iterdir()) if path.is_dir() else [path]:
        digest.update(part.read_bytes())
    return digest.hexdigest()
