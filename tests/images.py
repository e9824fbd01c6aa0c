"""Images and files for the media tests, made when a test asks (no binary fixtures).

Images are drawn with Pillow; :func:`huge_png` is written chunk by chunk with zlib, since it
is a real image of 400 million pixels that Pillow would need gigabytes to draw.
"""

import io
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

SVG_WITH_SCRIPT = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script><rect width='10' height='10'/></svg>"
)

HTML_PAGE = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>"


def image_bytes(width=1200, height=800, format_name="PNG", color=(30, 120, 200), exif=None):
    """Return an image of one colour, with a red square in its top-left corner, encoded."""
    image = Image.new("RGB", (width, height), color)
    image.paste((200, 30, 30), (0, 0, max(1, width // 4), max(1, height // 4)))
    buffer = io.BytesIO()
    options = {"exif": exif} if exif is not None else {}
    image.save(buffer, format=format_name, **options)
    return buffer.getvalue()


def upload(name, content, content_type="application/octet-stream"):
    """Return ``content`` as an uploaded file named ``name``."""
    return SimpleUploadedFile(name, content, content_type=content_type)


def png_upload(name="diagram.png", width=1200, height=800):
    """Return a PNG upload ``width`` × ``height`` pixels."""
    return upload(name, image_bytes(width, height), "image/png")


def _chunk(kind, data):
    """Return one PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width=20_000, height=20_000):
    """Return a valid black-and-white PNG of ``width`` × ``height`` pixels, all black.

    One bit a pixel, each row filter byte 0 then zeros, compressed: about 50 KB for the
    default 20,000 × 20,000.
    """
    row = b"\x00" * (1 + (width + 7) // 8)
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )
