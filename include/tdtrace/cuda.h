/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace's own declarations of the CUDA 13 driver API's types.
 *
 * NVIDIA's headers are not redistributable and the build must not need the
 * toolkit, so the project carries the ABI facts it relies on: handle and
 * scalar types, the structures that are passed by value or whose fields the
 * emulator reads, and (through the generated cuda_enums.h) every enum.
 * Structures that only ever travel by pointer are declared incomplete.
 * Function prototypes come from the API table: see cuda_api.h. */
#ifndef TDTRACE_CUDA_H
#define TDTRACE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define CUDA_VERSION 13000
#define CUDAAPI

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

typedef unsigned int CUdeviceptr_v1;
typedef unsigned long long CUdeviceptr_v2;
typedef CUdeviceptr_v2 CUdeviceptr;
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef cuuint64_t CUgraphConditionalHandle;
typedef unsigned int CUlogIterator;

/* opaque handles */
#define TD_HANDLE(name, tag) typedef struct tag *name
TD_HANDLE(CUcontext, CUctx_st);
TD_HANDLE(CUmodule, CUmod_st);
TD_HANDLE(CUfunction, CUfunc_st);
TD_HANDLE(CUlibrary, CUlib_st);
TD_HANDLE(CUkernel, CUkern_st);
TD_HANDLE(CUarray, CUarray_st);
TD_HANDLE(CUmipmappedArray, CUmipmappedArray_st);
TD_HANDLE(CUtexref, CUtexref_st);
TD_HANDLE(CUsurfref, CUsurfref_st);
TD_HANDLE(CUevent, CUevent_st);
TD_HANDLE(CUstream, CUstream_st);
TD_HANDLE(CUgraphicsResource, CUgraphicsResource_st);
TD_HANDLE(CUexternalMemory, CUextMemory_st);
TD_HANDLE(CUexternalSemaphore, CUextSemaphore_st);
TD_HANDLE(CUgraph, CUgraph_st);
TD_HANDLE(CUgraphNode, CUgraphNode_st);
TD_HANDLE(CUgraphExec, CUgraphExec_st);
TD_HANDLE(CUmemoryPool, CUmemPoolHandle_st);
TD_HANDLE(CUuserObject, CUuserObject_st);
TD_HANDLE(CUlinkState, CUlinkState_st);
TD_HANDLE(CUgreenCtx, CUgreenCtx_st);
TD_HANDLE(CUdevResourceDesc, CUdevResourceDesc_st);
TD_HANDLE(CUasyncCallbackHandle, CUasyncCallbackEntry_st);
TD_HANDLE(CUlogsCallbackHandle, CUlogsCallbackEntry_st);
#undef TD_HANDLE

#define CU_STREAM_LEGACY     ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)
#define CU_DEVICE_CPU        ((CUdevice)-1)
#define CU_DEVICE_INVALID    ((CUdevice)-2)
#define CU_LAUNCH_PARAM_END            ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE    ((void *)0x02)
#define CU_IPC_HANDLE_SIZE 64

#include "cuda_enums.h"   /* generated from src/xlat/NAME.in */

typedef CUlaunchAttributeID CUstreamAttrID;
typedef CUlaunchAttributeID CUkernelNodeAttrID;
typedef int CUdevResourceType;
typedef int CUoutput_mode;

/* structures passed by value */
typedef struct CUuuid_st { char bytes[16]; } CUuuid;
typedef struct CUipcEventHandle_st { char reserved[CU_IPC_HANDLE_SIZE]; } CUipcEventHandle;
typedef struct CUipcMemHandle_st { char reserved[CU_IPC_HANDLE_SIZE]; } CUipcMemHandle;
typedef struct CUmemPoolPtrExportData_st { unsigned char reserved[64]; } CUmemPoolPtrExportData;
typedef struct CUmemLocation_st { CUmemLocationType type; int id; } CUmemLocation;

/* structures whose fields the emulator reads or writes */
typedef struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes, srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

typedef struct CUdevprop_st {
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], sharedMemPerBlock,
        totalConstantMemory, SIMDWidth, memPitch, regsPerBlock, clockRate, textureAlign;
} CUdevprop;

typedef struct CUexecAffinityParam_st {
    CUexecAffinityType type;
    union { struct { unsigned int val; } smCount; } param;
} CUexecAffinityParam;

typedef struct CUctxCigParam_st { CUcigDataType sharedDataType; void *sharedData; } CUctxCigParam;
typedef struct CUctxCreateParams_st {
    CUexecAffinityParam *execAffinityParams;
    int numExecAffinityParams;
    CUctxCigParam *cigParams;
} CUctxCreateParams;

typedef struct CUmemAllocationProp_st {
    CUmemAllocationType type;
    CUmemAllocationHandleType requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType, gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;

typedef struct CUmemPoolProps_st {
    CUmemAllocationType allocType;
    CUmemAllocationHandleType handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

typedef struct CUaccessPolicyWindow_st {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    CUaccessProperty hitProp, missProp;
} CUaccessPolicyWindow;
typedef struct CUlaunchMemSyncDomainMap_st { unsigned char default_, remote; } CUlaunchMemSyncDomainMap;
typedef struct CUgraphDeviceUpdatableNode_st *CUgraphDeviceNode;
typedef union CUlaunchAttributeValue_union {
    char pad[64];
    CUaccessPolicyWindow accessPolicyWindow;
    int cooperative;
    CUsynchronizationPolicy syncPolicy;
    struct { unsigned int x, y, z; } clusterDim;
    CUclusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct { CUevent event; int flags; int triggerAtBlockStart; } programmaticEvent;
    struct { CUevent event; int flags; } launchCompletionEvent;
    int priority;
    CUlaunchMemSyncDomainMap memSyncDomainMap;
    CUlaunchMemSyncDomain memSyncDomain;
    struct { unsigned int x, y, z; } preferredClusterDim;
    struct { int deviceUpdatable; CUgraphDeviceNode devNode; } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} CUlaunchAttributeValue;
typedef struct CUlaunchAttribute_st {
    CUlaunchAttributeID id;
    char pad[8 - sizeof(CUlaunchAttributeID)];
    CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef CUlaunchAttributeValue CUstreamAttrValue;
typedef CUlaunchAttributeValue CUkernelNodeAttrValue;

typedef struct CUlaunchConfig_st {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;

typedef union CUstreamBatchMemOpParams_union {
    CUstreamBatchMemOpType operation;
    struct CUstreamMemOpWaitValueParams_st {
        CUstreamBatchMemOpType operation;
        CUdeviceptr address;
        union { cuuint32_t value; cuuint64_t value64; };
        unsigned int flags;
        CUdeviceptr alias;
    } waitValue;
    struct CUstreamMemOpWriteValueParams_st {
        CUstreamBatchMemOpType operation;
        CUdeviceptr address;
        union { cuuint32_t value; cuuint64_t value64; };
        unsigned int flags;
        CUdeviceptr alias;
    } writeValue;
    struct CUstreamMemOpFlushRemoteWritesParams_st { CUstreamBatchMemOpType operation; unsigned int flags; } flushRemoteWrites;
    struct CUstreamMemOpMemoryBarrierParams_st { CUstreamBatchMemOpType operation; unsigned int flags; } memoryBarrier;
    cuuint64_t pad[6];
} CUstreamBatchMemOpParams;

/* callbacks */
typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream hStream, CUresult status, void *userData);
typedef size_t (*CUoccupancyB2DSize)(int blockSize);
typedef struct CUasyncNotificationInfo_st CUasyncNotificationInfo;
typedef void (*CUasyncCallback)(CUasyncNotificationInfo *info, void *userData,
                                CUasyncCallbackHandle callback);
typedef void (*CUlogsCallback)(void *data, CUlogLevel logLevel, char *message, size_t length);

/* structures that only travel by pointer: incomplete here */
#define TD_STRUCT(name) typedef struct name##_st name
TD_STRUCT(CUDA_ARRAY3D_DESCRIPTOR); TD_STRUCT(CUDA_ARRAY3D_DESCRIPTOR_v1);
TD_STRUCT(CUDA_ARRAY_DESCRIPTOR); TD_STRUCT(CUDA_ARRAY_DESCRIPTOR_v1);
TD_STRUCT(CUDA_ARRAY_MEMORY_REQUIREMENTS); TD_STRUCT(CUDA_ARRAY_SPARSE_PROPERTIES);
TD_STRUCT(CUDA_BATCH_MEM_OP_NODE_PARAMS); TD_STRUCT(CUDA_EXTERNAL_MEMORY_BUFFER_DESC);
TD_STRUCT(CUDA_EXTERNAL_MEMORY_HANDLE_DESC); TD_STRUCT(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC);
TD_STRUCT(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC); TD_STRUCT(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS);
TD_STRUCT(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS); TD_STRUCT(CUDA_EXT_SEM_SIGNAL_NODE_PARAMS);
TD_STRUCT(CUDA_EXT_SEM_WAIT_NODE_PARAMS); TD_STRUCT(CUDA_GRAPH_INSTANTIATE_PARAMS);
TD_STRUCT(CUDA_HOST_NODE_PARAMS); TD_STRUCT(CUDA_KERNEL_NODE_PARAMS);
TD_STRUCT(CUDA_KERNEL_NODE_PARAMS_v1); TD_STRUCT(CUDA_LAUNCH_PARAMS);
TD_STRUCT(CUDA_MEMCPY2D_v1); TD_STRUCT(CUDA_MEMCPY3D); TD_STRUCT(CUDA_MEMCPY3D_BATCH_OP);
TD_STRUCT(CUDA_MEMCPY3D_PEER); TD_STRUCT(CUDA_MEMCPY3D_v1); TD_STRUCT(CUDA_MEMSET_NODE_PARAMS);
TD_STRUCT(CUDA_MEM_ALLOC_NODE_PARAMS); TD_STRUCT(CUDA_RESOURCE_DESC);
TD_STRUCT(CUDA_RESOURCE_VIEW_DESC); TD_STRUCT(CUDA_TEXTURE_DESC);
TD_STRUCT(CUarrayMapInfo); TD_STRUCT(CUcheckpointCheckpointArgs); TD_STRUCT(CUcheckpointLockArgs);
TD_STRUCT(CUcheckpointRestoreArgs); TD_STRUCT(CUcheckpointUnlockArgs);
TD_STRUCT(CUdevResource); TD_STRUCT(CUgraphEdgeData); TD_STRUCT(CUgraphExecUpdateResultInfo);
TD_STRUCT(CUgraphNodeParams); TD_STRUCT(CUmemAccessDesc); TD_STRUCT(CUmemDecompressParams);
TD_STRUCT(CUmemcpyAttributes); TD_STRUCT(CUmulticastObjectProp);
TD_STRUCT(CUtensorMap);
#undef TD_STRUCT

/* graphs and stream capture (the emulator's graph*.c and capture.c read
 * these); layouts as in CUDA 13's cuda.h */
#define CU_GRAPH_COND_ASSIGN_DEFAULT 0x1
#define CU_GRAPH_KERNEL_NODE_PORT_DEFAULT 0
#define CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC 1
#define CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER 2
struct CUDA_MEMCPY3D_st {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
};
struct CUDA_KERNEL_NODE_PARAMS_v1_st {
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};
struct CUDA_KERNEL_NODE_PARAMS_st {         /* _v2 and _v3 */
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
    CUkernel kern;
    CUcontext ctx;
};
typedef CUDA_KERNEL_NODE_PARAMS CUDA_KERNEL_NODE_PARAMS_v2;
typedef CUDA_KERNEL_NODE_PARAMS CUDA_KERNEL_NODE_PARAMS_v3;
struct CUDA_MEMSET_NODE_PARAMS_st {         /* _v1 */
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
};
typedef struct CUDA_MEMSET_NODE_PARAMS_v2_st {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
    CUcontext ctx;
} CUDA_MEMSET_NODE_PARAMS_v2;
struct CUDA_HOST_NODE_PARAMS_st { CUhostFn fn; void *userData; };
typedef CUDA_HOST_NODE_PARAMS CUDA_HOST_NODE_PARAMS_v2;
typedef struct CUDA_MEMCPY_NODE_PARAMS_st {
    int flags, reserved;
    CUcontext copyCtx;
    CUDA_MEMCPY3D copyParams;
} CUDA_MEMCPY_NODE_PARAMS;
typedef struct CUDA_CHILD_GRAPH_NODE_PARAMS_st {
    CUgraph graph;
    CUgraphChildGraphNodeOwnership ownership;
} CUDA_CHILD_GRAPH_NODE_PARAMS;
typedef struct CUDA_EVENT_RECORD_NODE_PARAMS_st { CUevent event; } CUDA_EVENT_RECORD_NODE_PARAMS;
typedef struct CUDA_EVENT_WAIT_NODE_PARAMS_st { CUevent event; } CUDA_EVENT_WAIT_NODE_PARAMS;
struct CUmemAccessDesc_st { CUmemLocation location; CUmemAccess_flags flags; };
struct CUDA_MEM_ALLOC_NODE_PARAMS_st {      /* _v1 and _v2 */
    CUmemPoolProps poolProps;
    const CUmemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    CUdeviceptr dptr;
};
typedef CUDA_MEM_ALLOC_NODE_PARAMS CUDA_MEM_ALLOC_NODE_PARAMS_v2;
typedef struct CUDA_MEM_FREE_NODE_PARAMS_st { CUdeviceptr dptr; } CUDA_MEM_FREE_NODE_PARAMS;
struct CUDA_BATCH_MEM_OP_NODE_PARAMS_st {   /* _v1 and _v2 */
    CUcontext ctx;
    unsigned int count;
    CUstreamBatchMemOpParams *paramArray;
    unsigned int flags;
};
typedef CUDA_BATCH_MEM_OP_NODE_PARAMS CUDA_BATCH_MEM_OP_NODE_PARAMS_v2;
typedef struct CUDA_CONDITIONAL_NODE_PARAMS {
    CUgraphConditionalHandle handle;
    CUgraphConditionalNodeType type;
    unsigned int size;
    CUgraph *phGraph_out;
    CUcontext ctx;
} CUDA_CONDITIONAL_NODE_PARAMS;
struct CUgraphNodeParams_st {
    CUgraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        CUDA_KERNEL_NODE_PARAMS_v3 kernel;
        CUDA_MEMCPY_NODE_PARAMS memcpy;
        CUDA_MEMSET_NODE_PARAMS_v2 memset;
        CUDA_HOST_NODE_PARAMS_v2 host;
        CUDA_CHILD_GRAPH_NODE_PARAMS graph;
        CUDA_EVENT_WAIT_NODE_PARAMS eventWait;
        CUDA_EVENT_RECORD_NODE_PARAMS eventRecord;
        CUDA_MEM_ALLOC_NODE_PARAMS_v2 alloc;
        CUDA_MEM_FREE_NODE_PARAMS free;
        CUDA_BATCH_MEM_OP_NODE_PARAMS_v2 memOp;
        CUDA_CONDITIONAL_NODE_PARAMS conditional;
    };
    long long reserved2;
};
struct CUgraphEdgeData_st {
    unsigned char from_port, to_port, type, reserved[5];
};
struct CUgraphExecUpdateResultInfo_st {
    CUgraphExecUpdateResult result;
    CUgraphNode errorNode, errorFromNode;
};
struct CUDA_GRAPH_INSTANTIATE_PARAMS_st {
    cuuint64_t flags;
    CUstream hUploadStream;
    CUgraphNode hErrNode_out;
    CUgraphInstantiateResult result_out;
};

/* CUDA arrays, textures and surfaces (the emulator's array.c and
 * texture.c read these); layouts as in CUDA 13's cuda.h */
#define CUDA_ARRAY3D_LAYERED 0x01
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CUDA_ARRAY3D_CUBEMAP 0x04
#define CUDA_ARRAY3D_TEXTURE_GATHER 0x08
#define CUDA_ARRAY3D_DEPTH_TEXTURE 0x10
#define CUDA_ARRAY3D_COLOR_ATTACHMENT 0x20
#define CUDA_ARRAY3D_SPARSE 0x40
#define CUDA_ARRAY3D_DEFERRED_MAPPING 0x80
#define CUDA_ARRAY3D_VIDEO_ENCODE_DECODE 0x100
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
#define CU_TRSF_SRGB 0x10
#define CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION 0x20
#define CU_TRSF_SEAMLESS_CUBEMAP 0x40
struct CUDA_ARRAY_DESCRIPTOR_st { size_t Width, Height; CUarray_format Format; unsigned int NumChannels; };
struct CUDA_ARRAY_DESCRIPTOR_v1_st { unsigned int Width, Height; CUarray_format Format; unsigned int NumChannels; };
struct CUDA_ARRAY3D_DESCRIPTOR_st {
    size_t Width, Height, Depth;
    CUarray_format Format;
    unsigned int NumChannels, Flags;
};
struct CUDA_ARRAY3D_DESCRIPTOR_v1_st {
    unsigned int Width, Height, Depth;
    CUarray_format Format;
    unsigned int NumChannels, Flags;
};
struct CUDA_ARRAY_MEMORY_REQUIREMENTS_st { size_t size, alignment; unsigned int reserved[4]; };
struct CUDA_RESOURCE_DESC_st {
    CUresourcetype resType;
    union {
        struct { CUarray hArray; } array;
        struct { CUmipmappedArray hMipmappedArray; } mipmap;
        struct { CUdeviceptr devPtr; CUarray_format format; unsigned int numChannels; size_t sizeInBytes; } linear;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned int numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned int flags;
};
struct CUDA_TEXTURE_DESC_st {
    CUaddress_mode addressMode[3];
    CUfilter_mode filterMode;
    unsigned int flags, maxAnisotropy;
    CUfilter_mode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
};
struct CUDA_RESOURCE_VIEW_DESC_st {
    CUresourceViewFormat format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
    unsigned int reserved[16];
};
typedef struct CUoffset3D_st { size_t x, y, z; } CUoffset3D;
typedef struct CUextent3D_st { size_t width, height, depth; } CUextent3D;
typedef struct CUmemcpy3DOperand_st {
    CUmemcpy3DOperandType type;
    union {
        struct { CUdeviceptr ptr; size_t rowLength, layerHeight; CUmemLocation locHint; } ptr;
        struct { CUarray array; CUoffset3D offset; } array;
    } op;
} CUmemcpy3DOperand;
struct CUDA_MEMCPY3D_BATCH_OP_st {
    CUmemcpy3DOperand src, dst;
    CUextent3D extent;
    CUmemcpySrcAccessOrder srcAccessOrder;
    unsigned int flags;
};
struct CUDA_MEMCPY3D_v1_st {               /* before CUDA 3.2: 32-bit sizes and device pointers */
    unsigned int srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr_v1 srcDevice;
    CUarray srcArray;
    void *reserved0;
    unsigned int srcPitch, srcHeight;
    unsigned int dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr_v1 dstDevice;
    CUarray dstArray;
    void *reserved1;
    unsigned int dstPitch, dstHeight;
    unsigned int WidthInBytes, Height, Depth;
};
struct CUmemcpyAttributes_st {
    CUmemcpySrcAccessOrder srcAccessOrder;
    CUmemLocation srcLocHint, dstLocHint;
    unsigned int flags;
};
struct CUDA_MEMCPY3D_PEER_st {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    CUcontext srcContext;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    CUcontext dstContext;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
};

#endif
