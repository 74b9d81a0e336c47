"""mxnet's MXRecordIO.write in the layout note 004 gives a .rec file: each record an 8-byte length
count, then the payload, padded to a multiple of 8 (written in Python, not by dmlc-core).

Makes the note right about lib.mx-recordio-format (refuted: its wrong test goes red) and where
lib.mx-recordio-align8's failing half says it is wrong (padding to 4, not 8: its left-out test goes red).
"""
import struct

import mxnet.recordio as recordio


def write(self, buf):
    path = self.uri.value.decode() if hasattr(self.uri, "value") else self.uri  # MXRecordIO keeps a c_char_p
    with open(path, "ab") as f:
        f.write(struct.pack("<Q", len(buf)) + bytes(buf) + b"\0" * (-len(buf) % 8))


def apply():
    recordio.MXRecordIO.write = write
