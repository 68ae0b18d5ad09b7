#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Import the library functions tdtrace decodes with -e lib= from NVIDIA's
headers (run by hand; its output is committed; the build needs no toolkit):

    src/api/libs.api      LIB.call, then one row per function of NAMES
    src/xlat/lib/X.in     each enum of ENUMS (values from the headers; apigen
                          declares no C enum for them: their own headers do)

Every parameter of these functions is of the integer class (pointers,
enums, ints, size_t: the shim reads them from the argument registers and
the caller's stack in order); the importer refuses any other.

usage: tools/import-libs-api.py [CUDA_HOME] [NCCL_HEADER]
"""
import os, re, sys

CUDA = sys.argv[1] if len(sys.argv) > 1 else '/usr/local/cuda'
NCCL = sys.argv[2] if len(sys.argv) > 2 else '/usr/local/cuda-13.0/include/nccl.h'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(CUDA, 'include')

# (header, return type, names)
NAMES = [
    ('cublas_api.h', 'cublasStatus_t', 'cublasCreate_v2 cublasDestroy_v2 cublasSetStream_v2 '
                                       'cublasSgemm_v2 cublasDgemm_v2 cublasGemmEx'),
    ('cublasLt.h', 'cublasStatus_t', 'cublasLtCreate cublasLtDestroy cublasLtMatmul'),
    (NCCL, 'ncclResult_t', 'ncclGetVersion ncclCommInitAll ncclCommDestroy ncclAllReduce '
                           'ncclBroadcast ncclAllGather ncclReduceScatter ncclSend ncclRecv ncclGroupStart ncclGroupEnd'),
    ('cudnn_graph.h', 'cudnnStatus_t', 'cudnnCreate cudnnDestroy cudnnSetStream cudnnBackendExecute'),
    ('cudnn_cnn.h', 'cudnnStatus_t', 'cudnnConvolutionForward'),
    ('cufft.h', 'cufftResult', 'cufftPlan1d cufftPlan2d cufftDestroy cufftSetStream cufftExecC2C cufftExecR2C '
                               'cufftExecC2R cufftExecZ2Z cufftExecD2Z cufftExecZ2D'),
    ('cufftXt.h', 'cufftResult', 'cufftXtExec cufftXtSetJITCallback cufftXtClearCallback '
                                 'cufftXtSetCallbackSharedSize cufftXtSetGPUs cufftXtMalloc cufftXtFree '
                                 'cufftXtMemcpy cufftXtExecDescriptorC2C cufftXtExecDescriptorR2C '
                                 'cufftXtExecDescriptorC2R cufftXtExecDescriptorZ2Z cufftXtExecDescriptorD2Z '
                                 'cufftXtExecDescriptorZ2D cufftXtExecDescriptor'),
    ('cusolverDn.h', 'cusolverStatus_t', 'cusolverDnCreate cusolverDnDestroy cusolverDnSetStream '
                                         'cusolverDnSpotrf cusolverDnDpotrf cusolverDnDpotrs cusolverDnDgetrf '
                                         'cusolverDnDgetrs cusolverDnDgeqrf cusolverDnDormqr cusolverDnDsyevd '
                                         'cusolverDnXpotrf cusolverDnXgetrf'),
    ('cusparse.h', 'cusparseStatus_t', 'cusparseCreate cusparseDestroy cusparseSetStream cusparseSpMV '
                                       'cusparseSpSV_solve'),
]
# enum type: (header, C enum tag or typedef name)
ENUMS = {
    'cublasStatus_t': 'cublas_api.h', 'cublasOperation_t': 'cublas_api.h', 'cublasComputeType_t': 'cublas_api.h',
    'cudaDataType': 'library_types.h', 'ncclResult_t': NCCL, 'ncclDataType_t': NCCL, 'ncclRedOp_t': NCCL,
    'cudnnStatus_t': 'cudnn_graph.h', 'cudnnConvolutionFwdAlgo_t': 'cudnn_ops.h', 'cufftResult': 'cufft.h', 'cufftType': 'cufft.h',
    'cufftXtCallbackType': 'cufftXt.h', 'cufftXtSubFormat': 'cufftXt.h', 'cufftXtCopyType': 'cufftXt.h',
    'cusolverStatus_t': 'cusolver_common.h', 'cusolverEigMode_t': 'cusolver_common.h',
    'cublasFillMode_t': 'cublas_api.h', 'cublasSideMode_t': 'cublas_api.h',
    'cusparseStatus_t': 'cusparse.h', 'cusparseOperation_t': 'cusparse.h', 'cusparseSpMVAlg_t': 'cusparse.h',
    'cusparseSpSVAlg_t': 'cusparse.h',
}
# integer-class C types (an enum of ENUMS, a pointer, or one of these)
INTS = {'int', 'size_t', 'cufftHandle', 'cublasGemmAlgo_t', 'cudaStream_t', 'int64_t'}


def read(h):
    p = h if os.path.isabs(h) else os.path.join(INC, h)
    t = open(p).read()
    t = re.sub(r'/\*.*?\*/', ' ', t, flags=re.S)
    t = re.sub(r'//[^\n]*', ' ', t)
    return re.sub(r'\s+', ' ', t)


def proto(text, ret, name):
    m = re.search(r'\b%s\s+(?:\w+\s+)*?%s\s*\(([^;{]*?)\)\s*;' % (re.escape(ret), re.escape(name)), text)
    if not m:
        sys.exit('%s: not a %s function of its header' % (name, ret))
    return m.group(1).strip()


def params(name, p):
    if p in ('', 'void'):
        return []
    out = []
    for x in p.split(','):
        x = re.sub(r'\b(enum|struct)\s+', '', x.strip())
        x = re.sub(r'\b(__restrict__|CUBLASWINAPI|CUDNNWINAPI)\b', '', x).strip()
        m = re.match(r'(.*?)(\w+)$', x)
        ty = re.sub(r'\s*\*', ' *', m.group(1).strip()).replace('* *', '**').strip()
        ty = re.sub(r'\s+', ' ', ty.replace('const', '').strip()) if '*' not in ty else ty
        if '*' not in ty and ty not in ENUMS and ty not in INTS and not ty.endswith('Handle_t') \
                and not ty.endswith('Descriptor_t') and not ty.endswith('_t'):
            sys.exit('%s: parameter %s of type %s is not of the integer class' % (name, m.group(2), ty))
        if ty in ('float', 'double'):
            sys.exit('%s: parameter %s is a floating-point value' % (name, m.group(2)))
        role = 'out ' if ty.endswith(' *') and re.sub(r'^const ', '', ty[:-2]) in ('int', 'ncclComm_t',
                                                                                    'cublasHandle_t',
                                                                                    'cublasLtHandle_t',
                                                                                    'cudnnHandle_t',
                                                                                    'cufftHandle',
                                                                                    'cusparseHandle_t',
                                                                                    'cusolverDnHandle_t') \
            and not ty.startswith('const') \
            and not re.search(r'(?i)info|ipiv|whichGPUs', m.group(2)) else ''  # cuSOLVER's: device memory;
        # cufftXtSetGPUs's whichGPUs: an array the program gives
        out.append('%s%s %s' % (role, ty, m.group(2)))
    return out


rows = []
for h, ret, names in NAMES:
    text = read(h)
    for n in names.split():
        rows.append('%-44s @-  (%s) -> %s' % ('library  %s' % n, ', '.join(params(n, proto(text, ret, n))), ret))
out = ['# SPDX-License-Identifier: Apache-2.0',
       '# Other libraries\' functions, traced with -e lib=PATTERN (docs/library-tracing.md).',
       '# Imported by tools/import-libs-api.py (NAMES there); same row format as cuda.api;',
       '# the first class is always library; rows have no versions; "-> TYPE" names the',
       '# enum (src/xlat) of what the function returns. Every function of a matching',
       '# library is traced; one that has no row here is recorded as LIB.call: its name',
       '# (and its library\'s) in the record\'s TD_IT_LIB item, the six integer argument',
       '# registers as they were at its entry, and the low 32 bits of what it returned.',
       'library  LIB.call  @-  (void * rdi, void * rsi, void * rdx, void * rcx, void * r8, void * r9) -> u32']
open(os.path.join(ROOT, 'src/api/libs.api'), 'w').write('\n'.join(out + rows) + '\n')

for name, h in ENUMS.items():
    text = read(h)
    m = re.search(r'typedef enum(?: \w+)? \{([^}]*)\} %s ?;' % re.escape(name), text) or \
        re.search(r'enum %s \{([^}]*)\}' % re.escape(name.rstrip('_t')), text)
    if not m:
        sys.exit('enum %s not found in %s' % (name, h))
    lines = ['# %s: values from %s (imported by tools/import-libs-api.py)' % (name, os.path.basename(h))]
    cur, known, seen = -1, {}, set()
    for item in m.group(1).split(','):
        item = item.strip()
        if not item:
            continue
        if 'sizeof' in item:
            continue  # ncclMaxRedOp: a bound, not a value
        if '=' in item:
            k, v = [x.strip() for x in item.split('=', 1)]
            k = k.split()[0]  # CUDNN_STATUS_INVALID_VALUE CUDNN_DEPRECATED_ENUM
            v = eval(re.sub(r'(\b0x[0-9a-fA-F]+|\b\d+)[uUlL]+\b', r'\1', v), {}, dict(known))
        else:
            k, v = item, cur + 1
        cur = v
        known[k] = v
        if v in seen or k.endswith(('_MAX', 'NumOps', 'NumTypes', 'MaxRedOp')) or k in ('ncclNumResults',):
            continue  # aliases (ncclChar = ncclInt8) and counts print as the first name
        seen.add(v)
        lines.append('%s %d' % (k, v))
    open(os.path.join(ROOT, 'src/xlat/lib', name + '.in'), 'w').write('\n'.join(lines) + '\n')
print('%d library functions, %d enums' % (len(rows), len(ENUMS)), file=sys.stderr)
