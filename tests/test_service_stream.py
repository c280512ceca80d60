"""`oxeye serve --source`: a real server reads a video file and streams it annotated as MJPEG; a source
that cannot be read is one line on stderr and exit status 2, before the service starts."""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from oxeye.models import DEFAULT_MODEL
from oxeye.service.app import create_app
from oxeye.service.live import LiveTable
from oxeye.service.rules_files import load_rules
from oxeye.service.settings import Settings
from oxeye.service.stream import Photo, Stream, open_source
from oxeye.vision.images import Decoded
from oxeye.vision.reading import Reading
from oxeye.vision.steady import Steady
from readings import jpeg_header_saying, portrait_as_a_phone_stores_it, rows_reading
from serving import free_port, refused, start_server, stop_server


def _video(path: Path, frames: int = 12, codec: str = "MJPG", fps: int = 10) -> Path:
    """A short video (an MJPG .avi): a light card moving across a green table."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), fps, (320, 240))
    for i in range(frames):
        image = np.full((240, 320, 3), (40, 90, 30), np.uint8)
        cv2.rectangle(image, (40 + 5 * i, 60), (100 + 5 * i, 150), (240, 240, 240), -1)
        writer.write(image)
    writer.release()
    return path


def _parts(response: httpx.Response, wanted: int) -> list[bytes]:
    """The first ``wanted`` JPEGs of a multipart/x-mixed-replace response."""
    boundary = response.headers["content-type"].split("boundary=")[1].encode()
    buffer, parts = b"", []
    for chunk in response.iter_bytes():
        buffer += chunk
        while len(parts) < wanted and (end := buffer.find(b"\r\n\r\n")) >= 0:
            head, rest = buffer[:end].decode(), buffer[end + 4:]
            assert head.startswith(f"--{boundary.decode()}\r\n") and "Content-Type: image/jpeg" in head
            length = int(head.split("Content-Length: ")[1])
            if len(rest) < length + 2:
                break
            parts.append(rest[:length])
            buffer = rest[length + 2:]
        if len(parts) == wanted:
            return parts
    raise AssertionError(f"the stream ended after {len(parts)} pictures")


def test_a_video_file_is_streamed_annotated(tmp_path: Path, tiny: Path) -> None:
    port = free_port()
    server = start_server(tmp_path, port, "--source", str(_video(tmp_path / "table.avi")),
                          "--model", str(tiny / "run" / "oxeye.onnx"))
    try:
        assert 'href="/v1/stream.mjpg"' in httpx.get(f"http://127.0.0.1:{port}/").text  # the home page links it
        with httpx.stream("GET", f"http://127.0.0.1:{port}/v1/stream.mjpg", timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("multipart/x-mixed-replace")
            pictures = _parts(response, 3)
        for jpeg in pictures:
            assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (240, 320, 3)
        assert len(set(pictures)) > 1  # the picture moves on (the file loops, the card moves)
    finally:
        stop_server(server)
    log = server.stderr.read().decode()
    assert "Application shutdown complete" in log and "Traceback" not in log, log  # the reader stopped cleanly




def _damaged(video: Path, frame: int) -> Path:
    """``video`` (``_video``'s) with picture ``frame`` made undecodable: its first 1000 bytes, header and all, zeroed."""
    data = bytearray(video.read_bytes())
    start = [n for n in range(len(data) - 2) if data[n:n + 3] == b"\xff\xd8\xff"][frame]
    data[start:start + 1000] = bytes(1000)
    video.write_bytes(data)
    return video


def _played(video: Path, count: int) -> list[int]:
    """The first ``count`` frames ``--source VIDEO``'s reader hands on, each as its number (where its card lies)."""

    async def played() -> list[int]:
        capture, file = open_source(str(video))
        stream = Stream(capture, str(video), file, table=None)  # the reader alone: nothing is read or drawn
        reader = threading.Thread(target=stream._read, args=(asyncio.get_running_loop(),), daemon=True)
        reader.start()
        numbers, seen = [], 0
        while len(numbers) < count and (newest := await stream._frames.newer(seen)) is not None:
            seen, frame = newest
            numbers.append(round((int(np.argmax(frame[100, :, 0] > 200)) - 40) / 5))
        stream._stop.set()
        return numbers

    return asyncio.run(played())


def test_a_video_file_with_a_frame_that_cannot_be_decoded_plays_on_past_it(tmp_path: Path) -> None:
    """A failed read was taken for the file's end: a recording with one damaged frame was played up to it and
    from the start again, for ever, the frames after it never shown. It is skipped, and the file plays on."""
    played = _played(_damaged(_video(tmp_path / "table.avi"), 4), 16)
    assert 4 not in played and {5, 11} <= set(played) and played.index(11) < played.index(0, 1), played


def test_a_video_file_whose_first_frame_cannot_be_decoded_is_played_from_its_second(tmp_path: Path) -> None:
    """It was refused as no video OpenCV can open."""
    assert _played(_damaged(_video(tmp_path / "table.avi"), 0), 12) == list(range(1, 12)) + [1]

def test_an_mpeg_video_stream_as_the_source_is_played_as_a_video(tmp_path: Path) -> None:
    """Pillow takes an MPEG elementary stream for a picture it cannot load: oxeye serve --source table.m1v
    stopped, 'the image is truncated or corrupt', where OpenCV plays it."""
    capture, is_file = open_source(str(_video(tmp_path / "table.m1v", 30, "PIM1", fps=25)))
    try:
        assert is_file and not isinstance(capture, Photo) and capture.read()[0]
    finally:
        capture.release()


def test_a_photo_as_the_source_is_streamed_again_and_again(tmp_path: Path, tiny: Path) -> None:
    """OpenCV opens a photo as a video of one frame that cannot be sought back to: the stream ended at once
    (503, 'the live source has ended') where a file is said to loop. A file that cannot seek is opened anew."""
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), np.full((240, 320, 3), (40, 90, 30), np.uint8))
    port = free_port()
    server = start_server(tmp_path, port, "--source", str(photo), "--model", str(tiny / "run" / "oxeye.onnx"))
    try:
        time.sleep(1)  # the photo's one frame is long read
        with httpx.stream("GET", f"http://127.0.0.1:{port}/v1/stream.mjpg", timeout=30) as response:
            assert response.status_code == 200
            pictures = _parts(response, 3)
    finally:
        stop_server(server)
    assert all(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (240, 320, 3) for jpeg in pictures)


def test_a_head_of_the_stream_is_answered_with_its_headers_alone(tmp_path: Path) -> None:
    """A HEAD of the stream (an uptime monitor's) is answered as its GET, without the endless body: the app is
    not left streaming pictures to no one."""
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), np.full((240, 320, 3), (40, 90, 30), np.uint8))
    with TestClient(create_app(Settings(data_dir=tmp_path, source=str(photo)))) as client:
        head = client.head("/v1/stream.mjpg")
    assert (head.status_code, head.headers["content-type"], head.content) == (
        200, "multipart/x-mixed-replace; boundary=frame", b"")


def test_a_phone_photo_as_the_source_is_read_upright_as_its_exif_says(tmp_path: Path) -> None:
    """OpenCV's video reader leaves out a photo's EXIF orientation: a phone's portrait photo was streamed and
    read lying on its side, where oxeye detect and /v1/evaluate read it upright."""
    photo = tmp_path / "portrait.jpg"
    photo.write_bytes(portrait_as_a_phone_stores_it())
    capture, is_file = open_source(str(photo))
    try:
        frames = [capture.read() for _ in range(3)]  # again and again
    finally:
        capture.release()
    assert is_file and all(ok and frame.shape == (200, 100, 3) for ok, frame in frames)
    assert frames[0][1][:40].mean() > 240 and frames[0][1][60:].mean() < 15  # white along the top


def test_viewers_still_watching_see_their_stream_end_when_the_server_stops(tmp_path: Path, tiny: Path) -> None:
    """uvicorn waits for responses to finish before it stops the app, and a viewer's never did: shutdown
    waited its 3 s, then cancelled each viewer with a traceback in the log, the viewer's body cut short."""
    port = free_port()
    server = start_server(tmp_path, port, "--source", str(_video(tmp_path / "table.avi")),
                          "--model", str(tiny / "run" / "oxeye.onnx"))
    watching, ended = [threading.Event(), threading.Event()], []

    def watch(seen: threading.Event) -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/v1/stream.mjpg", timeout=30) as response:
            try:
                for _ in response.iter_bytes():
                    seen.set()
                ended.append("cleanly")
            except httpx.HTTPError as error:
                ended.append(repr(error))

    viewers = [threading.Thread(target=watch, args=(seen,)) for seen in watching]
    try:
        for viewer in viewers:
            viewer.start()
        assert all(seen.wait(30) for seen in watching)
    finally:
        started = time.monotonic()
        stop_server(server)
    stopping = time.monotonic() - started
    for viewer in viewers:
        viewer.join(10)
    log = server.stderr.read().decode()
    assert ended == ["cleanly", "cleanly"] and stopping < 2, (ended, stopping)
    assert "Traceback" not in log, log


def test_ctrl_c_is_prompt_while_a_network_source_stalls(tmp_path: Path, tiny: Path) -> None:
    """A network camera that stops sending holds OpenCV's read for 30 s: Ctrl-C waited 5 s for the reader
    thread, then released the source under the read still in it."""
    video = _video(tmp_path / "table.avi").read_bytes()
    camera = socket.create_server(("127.0.0.1", 0))
    stalled = threading.Event()

    def send_half_and_stall() -> None:
        while not stalled.is_set():
            with camera.accept()[0] as viewer:
                viewer.recv(4096)
                viewer.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: video/x-msvideo\r\nContent-Length: %d\r\n\r\n"
                               % len(video) + video[:len(video) // 2])
                stalled.wait(30)

    threading.Thread(target=send_half_and_stall, daemon=True).start()
    port = free_port()
    server = start_server(tmp_path, port, "--source", f"http://127.0.0.1:{camera.getsockname()[1]}/table.avi",
                          "--model", str(tiny / "run" / "oxeye.onnx"))
    try:
        time.sleep(2)  # its frames are read, and the next read waits
        started = time.monotonic()
        server.send_signal(signal.SIGINT)
        server.wait(10)
        stopping = time.monotonic() - started
    finally:
        stalled.set()
        server.kill()
        camera.close()
    log = server.stderr.read().decode()
    assert server.returncode == 130 and stopping < 2.5 and "Traceback" not in log, (stopping, log)


def test_a_network_camera_that_drops_is_opened_again(tmp_path: Path, tiny: Path) -> None:
    """A camera whose connection ends (Wi-Fi dropped) ended the stream for good, every viewer told to restart
    the service; it is opened again, and the stream goes on."""
    video = _video(tmp_path / "table.avi").read_bytes()
    camera = socket.create_server(("127.0.0.1", 0))
    connections: list[int] = []

    def send_and_hang_up() -> None:  # the whole video to each connection, then the line drops
        while True:
            with camera.accept()[0] as viewer:
                viewer.recv(4096)
                connections.append(1)
                viewer.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: video/x-msvideo\r\nContent-Length: %d\r\n\r\n"
                               % len(video) + video)

    threading.Thread(target=send_and_hang_up, daemon=True).start()
    port = free_port()
    server = start_server(tmp_path, port, "--source", f"http://127.0.0.1:{camera.getsockname()[1]}/table.avi",
                          "--model", str(tiny / "run" / "oxeye.onnx"))
    try:
        deadline = time.monotonic() + 20
        while len(connections) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(connections) >= 3  # the first at the start, then once each time the line dropped
        with httpx.stream("GET", f"http://127.0.0.1:{port}/v1/stream.mjpg", timeout=20) as response:
            assert response.status_code == 200 and len(_parts(response, 2)) == 2
    finally:
        stop_server(server)
        camera.close()


def test_a_200_megapixel_photo_as_the_source_is_streamed_decoded_at_an_eighth(tmp_path: Path) -> None:
    """It was refused (over 100 million pixels); a 48-megapixel one was read whole at every frame."""
    photo = tmp_path / "phone.jpg"
    photo.write_bytes(jpeg_header_saying(16320, 12240))
    capture, _ = open_source(str(photo))
    try:
        ok, frame = capture.read()
    finally:
        capture.release()
    assert ok and frame.shape == (1530, 2040, 3)


def test_a_source_that_cannot_be_read_is_one_line_and_status_2(tmp_path: Path) -> None:
    (tmp_path / "notes.avi").write_text("not a video")
    for source, model, message in ((str(tmp_path / "missing.avi"), DEFAULT_MODEL, "no such video file"),
                                   (str(tmp_path), DEFAULT_MODEL, f"{tmp_path} is a folder, not a video file"),
                                   (str(tmp_path / "notes.avi"), DEFAULT_MODEL, "cannot read video from"),
                                   (str(_video(tmp_path / "table.avi", 2)), tmp_path / "none.onnx", "no model at")):
        said = refused("--port", str(free_port()), "--data", str(tmp_path), "--source", source, "--model", str(model))
        assert message in said, said



@pytest.mark.parametrize("source", ["８", "²"])
def test_a_camera_index_is_written_in_ascii_digits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """str.isdigit() took full-width '８' for camera 8, and '²' too, which int() refused: 'invalid literal for int()'."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError, match=f"no such video file: {source}$"):
        open_source(source)

class _Counting:
    """A stand-in detector that reads one hand in every frame and counts the frames it read."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self, image: np.ndarray, kinds: object = None, start: int | None = None) -> Reading:
        self.reads += 1
        return rows_reading([["KS", "QH", "JD", "KC", "QD"]])


def test_frames_are_read_only_while_someone_watches_and_afresh_after_a_rest() -> None:
    """The detector read every frame of the source with no one watching, both cores busy for no one; once
    watched again after a rest, the table is steadied afresh and the picture annotated before it not shown."""
    detector = _Counting()
    table = LiveTable(detector, load_rules("gnau"), 0, {}, 2)  # type: ignore[arg-type]
    stream = Stream(Photo(np.full((480, 640, 3), 90, np.uint8)), "table.jpg", True, table)

    async def watch(pictures: int) -> int:
        async with stream.watching() as shown:
            first = shown
            for _ in range(pictures):
                shown, _ = await stream.jpegs.newer(shown)
        return first

    streaks, frame = [], table.frame

    def steadied(photo: Decoded) -> tuple[Steady, dict]:
        steady, scored = frame(photo)
        streaks.append(steady.streaks)
        return steady, scored

    table.frame = steadied  # type: ignore[method-assign]

    async def play() -> None:
        await stream.start()
        await asyncio.sleep(0.4)  # 10 frames of a photo played at 25 a second
        assert detector.reads == 0 and stream.jpegs.count == 0
        assert await watch(3) == 0 and detector.reads >= 3 and streaks[:3] == [[1], [2], [3]]
        read, shown = detector.reads, stream.jpegs.count
        await asyncio.sleep(0.4)
        assert detector.reads <= read + 1  # the frame in hand when the viewer left, at most
        assert await watch(1) == stream.jpegs.count - 1 >= shown  # shown no picture from before the rest
        assert streaks[-1] == [1]  # the hand read afresh, not settled from before the rest
        await stream.stop()

    asyncio.run(play())
