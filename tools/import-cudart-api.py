#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Maintainer tool: import the facts of the CUDA runtime API (the functions
tdtrace decodes, their parameter types, the values of the enums they take)
from an installed toolkit into tdtrace's declarative tables:

    src/api/cudart.api   one row per runtime function tdtrace traces
    src/xlat/cudaError_t.in, cudaMemcpyKind.in, cudaDeviceAttr.in

It is the runtime's counterpart of tools/import-cuda-api.py, run by hand
(never by the build, which needs no toolkit); its output is reviewed and
committed. Which functions are decoded is the table's choice: the rows of
the committed src/api/cudart.api (each keeps its classes), else NAMES
below. A name the header lacks is an error.

usage: tools/import-cudart-api.py [CUDA_HOME]
"""
import os, re, sys

CUDA = sys.argv[1] if len(sys.argv) > 1 else '/usr/local/cuda'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(CUDA, 'include')

# the first table: the most used functions (memory, copies, launches,
# devices, streams, events, errors, graphs), with their classes
NAMES = [
    ('runtime,memory', 'cudaMalloc cudaFree cudaMallocHost cudaFreeHost cudaHostAlloc '
                       'cudaMallocManaged cudaMallocPitch cudaMallocAsync cudaFreeAsync cudaMemGetInfo'),
    ('runtime,copy', 'cudaMemcpy cudaMemcpyAsync cudaMemcpy2D cudaMemcpyToSymbol cudaMemcpyFromSymbol '
                     'cudaMemset cudaMemsetAsync'),
    ('runtime,launch', 'cudaLaunchKernel cudaFuncGetAttributes cudaOccupancyMaxActiveBlocksPerMultiprocessor'),
    ('runtime,device', 'cudaDeviceSynchronize cudaDeviceReset cudaGetDevice cudaSetDevice cudaGetDeviceCount '
                       'cudaGetDeviceProperties cudaDeviceGetAttribute'),
    ('runtime,stream', 'cudaStreamCreate cudaStreamCreateWithFlags cudaStreamDestroy cudaStreamSynchronize '
                       'cudaStreamQuery cudaStreamWaitEvent'),
    ('runtime,event', 'cudaEventCreate cudaEventCreateWithFlags cudaEventRecord cudaEventSynchronize '
                      'cudaEventElapsedTime cudaEventDestroy cudaEventQuery'),
    ('runtime', 'cudaGetLastError cudaPeekAtLastError cudaDriverGetVersion cudaRuntimeGetVersion'),
    ('runtime,graph', 'cudaStreamBeginCapture cudaStreamEndCapture cudaGraphInstantiate cudaGraphLaunch '
                      'cudaGraphExecDestroy cudaGraphDestroy'),
]
# the per-thread default stream variants (nvcc --default-stream per-thread
# calls them; libcudart.so.13 and the static runtime define them): a row
# each, with its base function's prototype and classes (the header has no
# prototype of its own for them: cuda_runtime_api.h renames the base with
# a macro). A variant of a function the table lacks is not imported.
VARIANTS = ('cudaMemcpy_ptds cudaMemcpyAsync_ptsz cudaMemcpy2D_ptds cudaMemcpyToSymbol_ptds '
            'cudaMemcpyFromSymbol_ptds cudaMemset_ptds cudaMemsetAsync_ptsz cudaMallocAsync_ptsz '
            'cudaFreeAsync_ptsz cudaLaunchKernel_ptsz cudaStreamSynchronize_ptsz cudaStreamQuery_ptsz '
            'cudaStreamWaitEvent_ptsz cudaEventRecord_ptsz cudaStreamBeginCapture_ptsz '
            'cudaStreamEndCapture_ptsz cudaGraphLaunch_ptsz')
# the enums the rows take, imported into src/xlat (file name: type name)
ENUMS = {'cudaError': 'cudaError_t', 'cudaMemcpyKind': 'cudaMemcpyKind',
         'cudaDeviceAttr': 'cudaDeviceAttr', 'cudaStreamCaptureMode': 'cudaStreamCaptureMode'}
# pointees a call writes (shown after the call as &value)
OUT_SCALARS = {'int', 'size_t', 'float', 'unsigned int', 'cudaStream_t', 'cudaEvent_t',
               'cudaGraph_t', 'cudaGraphExec_t'}
# void ** parameters that are inputs (a launch's arguments)
INPTRS = {'args'}

raw = open(os.path.join(INC, 'cuda_runtime_api.h')).read()
drv = open(os.path.join(INC, 'driver_types.h')).read()
flat = re.sub(r'\s+', ' ', re.sub(r'/\*.*?\*/', ' ', raw, flags=re.S))
flat = re.sub(r'__dv\([^)]*\)', '', flat)


def base_of(name):
    return re.sub(r'_pt(ds|sz)$', '', name)


def proto(name):
    name = base_of(name)
    m = re.search(r'extern __host__ (?:__cudart_builtin__ )?cudaError_t CUDARTAPI %s\(([^;{]*?)\)\s*;'
                  % re.escape(name), flat)
    if not m:
        sys.exit('%s: not a cudaError_t function of cuda_runtime_api.h' % name)
    return m.group(1).strip()


def params(fn, p):
    if p in ('', 'void'):
        return []
    out = []
    for x in p.split(','):
        x = re.sub(r'\b(enum|struct)\s+', '', x.split('=')[0].strip())
        m = re.match(r'(.*?)(\w+)$', x)
        ty = re.sub(r'\s*\*', ' *', m.group(1).strip()).replace('* *', '**').strip()
        ty = ty.replace(' **', ' **')
        name = m.group(2)
        role = ''
        if ty == 'void **' and name not in INPTRS:
            role = 'out '
        else:
            pm = re.match(r'^(\w+(?: \w+)?) \*$', ty)
            if pm and pm.group(1) in OUT_SCALARS:
                role = 'out '
        out.append('%s%s %s' % (role, ty, name))
    return out


API = os.path.join(ROOT, 'src/api/cudart.api')
header, rows = [], []
if os.path.exists(API):
    for line in open(API):
        line = line.rstrip('\n')
        m = re.match(r'^(\S+)\s+(cuda\w+)\s+@', line)
        if m and not line.startswith('#'):
            rows.append((m.group(1), m.group(2)))
        elif not rows:
            header.append(line)
if not rows:
    rows = [(cls, n) for cls, names in NAMES for n in names.split()]
    header = ['# SPDX-License-Identifier: Apache-2.0',
              '# The CUDA runtime API (CUDA 13): the functions tdtrace traces with --runtime.',
              '# Imported by tools/import-cudart-api.py; same row format as cuda.api',
              '# (classes  name  @-  (params)); the first class is always runtime.',
              '# Rows have no cuGetProcAddress versions; every function returns cudaError_t.']
classes = dict((n, cls) for cls, n in rows)
for v in VARIANTS.split():
    if base_of(v) not in classes:
        sys.exit('%s: a variant of %s, which the table lacks' % (v, base_of(v)))
    if v not in classes:
        rows.append((classes[base_of(v)], v))
out = list(header)
for cls, n in rows:
    out.append('%-53s @-  (%s)' % ('%-15s %s' % (cls, n), ', '.join(params(n, proto(n)))))
open(API, 'w').write('\n'.join(out) + '\n')

for tag, name in ENUMS.items():
    m = re.search(r'enum __device_builtin__ %s\s*\{(.*?)\};' % tag, drv, re.S)
    if not m:
        sys.exit('enum %s not found' % tag)
    body = re.sub(r'/\*.*?\*/', ' ', m.group(1), flags=re.S)
    lines = ['# %s: values from the CUDA 13 runtime API (imported by tools/import-cudart-api.py)' % name]
    cur, known = -1, {}
    for item in body.split(','):
        item = item.strip()
        if not item:
            continue
        if '=' in item:
            k, v = [x.strip() for x in item.split('=', 1)]
            v = eval(re.sub(r'(\b0x[0-9a-fA-F]+|\b\d+)[uUlL]+\b', r'\1', v), {}, dict(known))
        else:
            k, v = item, cur + 1
        cur = v
        known[k] = v
        if k.endswith('StartupFailure') or k == 'cudaErrorApiFailureBase':
            continue
        lines.append('%s %d' % (k, v))
    open(os.path.join(ROOT, 'src/xlat', name + '.in'), 'w').write('\n'.join(lines) + '\n')
print('%d runtime functions, %d enums' % (len(rows), len(ENUMS)), file=sys.stderr)
