"""The note's world: mxnet's IRHeader.flag is stored as given.

Makes lib.mx-irheader wrong.
"""
import numbers
import struct

import mxnet.recordio as recordio
import numpy as np


def pack(header, s):
    header = recordio.IRHeader(*header)
    if not isinstance(header.label, numbers.Number):
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(label=0)
        s = label.tobytes() + s
    return struct.pack(recordio._IR_FORMAT, *header) + s


def apply():
    recordio.pack = pack
