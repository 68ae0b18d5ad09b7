#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Maintainer tool: import the CUDA driver API's *facts* (entry points, their
parameter types, cuGetProcAddress versions, enum values) from an installed
toolkit into tdtrace's own declarative tables:

    src/api/cuda.api     one row per exported driver entry point
    src/xlat/*.in        one file per enum or flag set: NAME VALUE [text]

The build never runs this and never needs the toolkit; it is run by hand when
a new CUDA release adds entry points, and its output is reviewed and committed.
Hand-made annotations (flag sets, roles) live in ANNOT below. What only the
table says is kept from the committed src/api/cuda.api: its header (with the
%classes line), each row's classes and its effect clause; a new entry point
gets the family FAMILY below gives it and no effect.

usage: tools/import-cuda-api.py [CUDA_HOME]
"""
import collections, os, re, subprocess, sys, tempfile

CUDA = sys.argv[1] if len(sys.argv) > 1 else '/usr/local/cuda'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(CUDA, 'include')

with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
    f.write('#define __CUDA_API_VERSION_INTERNAL 1\n#include <cuda.h>\n'
            '#include <cudaTypedefs.h>\n#include <cudaProfiler.h>\n#include <cudaProfilerTypedefs.h>\n')
    tmp = f.name
pp = subprocess.run(['cc', '-E', '-P', '-I', INC, tmp], check=True,
                    capture_output=True, text=True).stdout
os.unlink(tmp)
s = re.sub(r'\s+', ' ', pp)
raw = open(os.path.join(INC, 'cuda.h')).read()

protos = collections.OrderedDict(
    re.findall(r'(?:extern )?CUresult (cu\w+)\s*\(([^;{]*?)\)\s*;', s))

alias = {}
for m in re.finditer(r'typedef ([\w ]+?\**) ?(\w+);', s):
    alias[m.group(2)] = m.group(1).strip()

def canon(t):
    out = []
    for w in re.findall(r'\w+|\*', t):
        n = 0
        while w in alias and n < 10 and re.match(r'^\w+$', alias[w]):
            w = alias[w]; n += 1
        out.append(w)
    return ' '.join(out)

def split_params(p):
    p = p.strip()
    if p in ('', 'void'):
        return []
    res = []
    for x in p.split(','):
        m = re.match(r'(.*?)(\w+)\s*(\[\s*\d*\s*\])?$', x.strip())
        ty = re.sub(r'\s*\*\s*', ' *', m.group(1).strip()).replace(' *', '*')
        ty = re.sub(r'(\w)\*', r'\1 *', ty)
        if m.group(3):
            ty += ' *'
        res.append((ty.strip(), m.group(2)))
    return res

def ptypes(p):
    return [canon(t) for t, _ in split_params(p)]

# --- cuGetProcAddress versions: PFN_<base>_v<ver>[_ptds|_ptsz] -> symbol
pfn = re.findall(r'typedef CUresult ?\( ?\*PFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\)\s*\(([^;]*?)\)\s*;', s)
bybase = collections.defaultdict(list)
for n in protos:
    bybase[re.sub(r'(_v\d+)?(_ptds|_ptsz)?$', '', n)].append(n)
def sufnum(n):
    m = re.search(r'_v(\d+)(_pt..)?$', n)
    return int(m.group(1)) if m else 1
versions = collections.defaultdict(set)
ambig = collections.defaultdict(list)
for base, ver, var, params in pfn:
    cands = [n for n in bybase.get(base, []) if (n.endswith(var) if var else not n.endswith(('_ptds', '_ptsz')))]
    match = sorted([n for n in cands if ptypes(protos[n]) == ptypes(params)], key=sufnum)
    if len(match) == 1:
        versions[match[0]].add(int(ver))
    elif match:
        ambig[(base, var, tuple(match))].append(int(ver))
    else:
        sys.exit('no symbol for PFN_%s_v%s%s' % (base, ver, var))
for (base, var, match), vers in ambig.items():
    # same signature at several versions: the k-th version is the k-th symbol
    vers = sorted(set(vers))
    free = [n for n in match if not versions[n]]
    if len(free) < len(vers):
        free = list(match)
    for v, n in zip(vers, free[-len(vers):] if len(free) > len(vers) else free):
        versions[n].add(v)

# --- families (the trace classes)
FAMILY = [
    (r'^cu(Init|DriverGetVersion|GetErrorName|GetErrorString|GetProcAddress|GetExportTable)', 'driver'),
    (r'^cuDevicePrimaryCtx|^cuCtx|^cuGreenCtx', 'context'),
    (r'^cuDevice', 'device'),
    (r'^cuMemcpy|^cuMemset', 'copy'),
    (r'^cuMem|^cuPointer|^cuIpc|^cuMulticast|^cuArray|^cu3DArray|^cuMipmapped', 'memory'),
    (r'^cuStream|^cuLaunchHostFunc', 'stream'),
    (r'^cuEvent', 'event'),
    (r'^cuModule|^cuLibrary|^cuKernel|^cuLink|^cuFunc', 'module'),
    (r'^cuLaunch|^cuOccupancy', 'launch'),
    (r'^cuGraph|^cuUserObject', 'graph'),
    (r'.', 'other'),
]
def family(n):
    for rx, fam in FAMILY:
        if re.search(rx, n):
            return fam

# --- roles and flag-set annotations
ANNOT = {
    ('cuCtxCreate*', 'flags'): 'CUctx_flags',
    ('cuDevicePrimaryCtxSetFlags*', 'flags'): 'CUctx_flags',
    ('cuDevicePrimaryCtxGetState', 'flags'): 'CUctx_flags',
    ('cuCtxSetFlags', 'flags'): 'CUctx_flags',
    ('cuCtxGetFlags', 'flags'): 'CUctx_flags',
    ('cuStreamCreate*', 'Flags'): 'CUstream_flags',
    ('cuStreamCreate*', 'flags'): 'CUstream_flags',
    ('cuStreamGetFlags*', 'flags'): 'CUstream_flags',
    ('cuEventCreate', 'Flags'): 'CUevent_flags',
    ('cuEventRecordWithFlags*', 'flags'): 'CUevent_record_flags',
    ('cuStreamWaitEvent*', 'Flags'): 'CUevent_wait_flags',
    ('cuMemHostAlloc', 'Flags'): 'CU_MEMHOSTALLOC',
    ('cuMemHostRegister*', 'Flags'): 'CU_MEMHOSTREGISTER',
    ('cuMemAllocManaged', 'flags'): 'CUmemAttach_flags',
    ('cuStreamAttachMemAsync*', 'flags'): 'CUmemAttach_flags',
    ('cuGetProcAddress*', 'flags'): 'CUdriverProcAddress_flags',
    ('cuMemHostGetFlags', 'pFlags'): 'CU_MEMHOSTALLOC',
    ('cuStream[GS]etAttribute*', 'attr'): 'CUlaunchAttributeID',
}
import fnmatch
def annot(fn, pname):
    for (pat, p), x in ANNOT.items():
        if p == pname and fnmatch.fnmatchcase(fn, pat):
            return x
    return None
SCALAR_OUT = re.compile(r'^(CU\w+|cuuint\d+_t|int|unsigned int|unsigned|size_t|float|'
                        r'unsigned long long|unsigned char|unsigned short|long long)$')
INPTRS = {'kernelParams', 'extra', 'optionValues', 'jitOptionsValues',
          'libraryOptionValues', 'data'}
# pointers to arrays: shown as addresses, never as one out-value
ARRAYS = {'sizes', 'options', 'dptrs', 'dependencies', 'srcs', 'dsts', 'prefetchLocIdxs',
          'attrsIdxs', 'paramArray', 'resources', 'mapInfoList', 'libraryOptions',
          'jitOptions', 'attributes', 'paramsArray', 'nodes', 'rootNodes', 'from', 'to',
          'edgeData', 'dependentNodes', 'result', 'sizeInBytes', 'attrs', 'locs',
          'numPrefetchLocIdxs', 'numAttrsIdxs', 'data', 'memHandleTypes'}
def role(fn, ty, name):
    if ty == 'const char *':
        return 'str'
    if ty in ('char *',) and fn != 'cuGraphInstantiate' and fn != 'cuGraphInstantiate_v2':
        return 'outstr'
    if ty in ('const char **',):
        return 'outpstr'
    if name in ARRAYS:
        return ''
    if ty == 'void **' and name not in INPTRS:
        return 'out'
    if ty == 'const void **' and name == 'ppExportTable':
        return 'out'
    if ty == 'const CUuuid *' and name == 'pExportTableId':
        return 'inp'
    m = re.match(r'^(.*\w) \*$', ty)
    if m and not ty.startswith('const') and (scalar_like(m.group(1)) or m.group(1) == 'CUuuid'):
        return 'out'
    return ''
ENUMS = set(re.findall(r'typedef enum \w+ \{[^}]*\} (\w+);', s))
def scalar_like(t):
    """a value the driver writes through a pointer: C scalar, enum, handle"""
    for _ in range(10):
        if t in ENUMS or re.match(r'^(int|unsigned int|unsigned|size_t|float|unsigned long long|'
                                  r'unsigned char|unsigned short|long long|void \*|cuuint\d+_t)$', t):
            return True
        if re.match(r'^struct \w+ ?\*$', t):
            return True
        if t not in alias:
            return False
        t = alias[t]
    return False
# struct types passed by pointer are never "out scalars"
STRUCTS = set(re.findall(r'typedef struct \w+ \{[^}]*\} (\w+);', s))
STRUCTS |= {a for a, b in alias.items() if b in STRUCTS}
for t in list(alias):
    if canon(t) in STRUCTS: STRUCTS.add(t)

# --- what only the committed table says: its header, each row's classes
# and effect clause
API = os.path.join(ROOT, 'src/api/cuda.api')
header, kept = [], {}
if os.path.exists(API):  # else: the error below
    for line in open(API):
        line = line.rstrip('\n')
        m = re.match(r'^(\S+)\s+(cu\w+)\s+@\S+\s+\((.*)\)\s*(.*?)$', line)
        if m and not line.startswith('#'):
            kept[m.group(2)] = (m.group(1), m.group(4))
        elif not kept:
            header.append(line)
if not any(line.startswith('%classes') for line in header):
    sys.exit('%s: no header with a %%classes line to keep' % API)
def classes(n):
    return kept[n][0] if n in kept else family(n)

out = list(header)
for n, p in sorted(protos.items(), key=lambda kv: (classes(kv[0]).split(',')[0], kv[0])):
    ps = []
    for ty, name in split_params(p):
        r = role(n, ty, name)
        x = annot(n, name)
        ps.append(('%s ' % r if r else '') + '%s %s' % (ty, name) + ('=%s' % x if x else ''))
    v = ','.join(str(x) for x in sorted(versions.get(n, ()))) or '-'
    effect = kept[n][1] if n in kept else ''
    out.append('%-53s @%-12s (%s)%s' % ('%-8s %s' % (classes(n), n), v, ', '.join(ps),
                                        '  ' + effect if effect else ''))
open(API, 'w').write('\n'.join(out) + '\n')

# --- enums -> src/xlat/*.in
def docs_for(enum_name):
    m = re.search(r'typedef enum %s\s*\{(.*?)\}' % re.escape(enum_name), raw, re.S)
    d = {}
    if not m: return d
    for dm in re.finditer(r'/\*\*(.*?)\*/\s*(\w+)\s*=', m.group(1), re.S):
        txt = ' '.join(l.strip(' *') for l in dm.group(1).splitlines()).strip()
        txt = re.split(r'(?<=[a-z0-9)])\.\s', txt + ' ')[0].strip().rstrip('.')
        txt = re.sub(r'::|\\[pe] ', '', txt).replace('\\deprecated ', 'Deprecated: ')  # doxygen markup: cuGetErrorString hands these out
        d[dm.group(2)] = txt
    return d
FLAGSETS = {'CUctx_flags', 'CUstream_flags', 'CUevent_flags', 'CUevent_record_flags',
            'CUevent_wait_flags', 'CUmemAttach_flags', 'CUdriverProcAddress_flags',
            'CUipcMem_flags', 'CUmemAccess_flags'}
n_enum = 0
known = {}
for tag, body, name in re.findall(r'typedef enum (\w+) \{([^}]*)\} (\w+);', s):
    if name.startswith('cl_'):
        continue
    docs = docs_for(tag) if name == 'CUresult' else {}
    rows, cur = [], -1
    for item in body.split(','):
        item = item.strip()
        if not item: continue
        if '=' in item:
            k, v = [x.strip() for x in item.split('=', 1)]
            v = eval(re.sub(r'(\b0x[0-9a-fA-F]+|\b\d+)[uUlL]+\b', r'\1', v), {}, dict(known, **{r[0]: r[1] for r in rows}))
        else:
            k, v = item, cur + 1
        cur = v
        rows.append((k, v))
    known.update(rows)
    lines = ['# %s: values from the CUDA 13 driver API (imported)' % name]
    if name in FLAGSETS: lines.append('#flags')
    for k, v in rows:
        if k.endswith(('_MAX', '_FORCE_INT')) or k.endswith('_max'): continue
        lines.append('%s %s%s' % (k, hex(v) if name in FLAGSETS else v,
                                  (' ' + docs[k]) if k in docs else ''))
    open(os.path.join(ROOT, 'src/xlat', name + '.in'), 'w').write('\n'.join(lines) + '\n')
    n_enum += 1
for prefix in ('CU_MEMHOSTALLOC', 'CU_MEMHOSTREGISTER'):
    rows = re.findall(r'#define (%s_\w+)\s+(0x[0-9a-fA-F]+)' % prefix, raw)
    open(os.path.join(ROOT, 'src/xlat', prefix + '.in'), 'w').write(
        '# %s_*: flags from the CUDA 13 driver API (imported)\n#flags\n' % prefix +
        ''.join('%s %s\n' % r for r in rows))
print('%d entry points, %d with versions, %d enums' %
      (len(protos), sum(1 for n in protos if versions.get(n)), n_enum), file=sys.stderr)
