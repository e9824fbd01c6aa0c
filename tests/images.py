"""Images and files for the media tests, made when a test asks (no binary fixtures).

Images are drawn with Pillow; :func:`huge_png` is written chunk by chunk with zlib, since it
is a real image of 400 million pixels that Pillow would need gigabytes to draw.
"""

import io
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, PngImagePlugin

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


def png_header(width, height):
    """Return a PNG of ``width`` × ``height`` pixels with its header and no pixel data (an
    empty IDAT chunk), which only a decoder would miss."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", b"")


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


# Written into every place for metadata in the images below, to be looked for afterwards.
SECRET = b"secret-location-48.51N"


def _exif(orientation=1):
    """Return EXIF with ``orientation``, a GPS latitude and ``SECRET`` as the description."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010E] = SECRET.decode()  # ImageDescription
    exif[0x8825] = {2: (48.0, 51.0, 0.0)}  # GPS latitude
    return exif


def _xmp():
    return (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
        b'02/22-rdf-syntax-ns#"><rdf:Description>' + SECRET + b"</rdf:Description></rdf:RDF>"
        b"</x:xmpmeta>"
    )


def with_metadata(format_name, width=400, height=200, frames=1):
    """Return an image holding ``SECRET`` in every kind of metadata its format has.

    JPEG: EXIF (orientation 6, a quarter turn), XMP and a comment (a COM segment). PNG:
    EXIF, a tEXt and an iTXt chunk. WebP: EXIF and XMP. GIF: a comment extension, in each
    of ``frames`` frames.
    """
    image = Image.new("RGB", (width, height), (30, 120, 200))
    image.paste((200, 30, 30), (0, 0, width // 4, height // 4))
    buffer = io.BytesIO()
    if format_name == "JPEG":
        image.save(buffer, "JPEG", exif=_exif(6), xmp=_xmp(), comment=SECRET)
    elif format_name == "PNG":
        text = PngImagePlugin.PngInfo()
        text.add_text("Comment", SECRET.decode())
        text.add_itxt("Description", SECRET.decode())
        image.save(buffer, "PNG", pnginfo=text, exif=_exif())
    elif format_name == "WEBP":
        image.save(buffer, "WEBP", exif=_exif(), xmp=_xmp())
    else:
        others = [image.rotate(90 * (i + 1)) for i in range(frames - 1)]
        image.save(
            buffer, "GIF", save_all=frames > 1, append_images=others, comment=SECRET,
            duration=100,
        )  # fmt: skip
    return buffer.getvalue()


def jpeg_segments(content):
    """Return the markers of a JPEG's segments before its scan: 0xE1 is EXIF or XMP, 0xFE a
    comment."""
    markers, at = [], 2
    while content[at] == 0xFF and content[at + 1] != 0xDA:
        markers.append(content[at + 1])
        at += 2 + struct.unpack(">H", content[at + 2 : at + 4])[0]
    return markers
