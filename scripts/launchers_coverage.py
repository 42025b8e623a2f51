#!/usr/bin/env python3
"""Write patterns/coverage/launchers.tsv: the launcher, scheduler, kernel and CUDA-runtime
failure messages (hand-written rows below, from the sources named in the header) and their mapping.
The sample of a sig: row is the row's own instance of the message, or else one of the signature's
samples that contains the message's fixed text.  Run from anywhere: scripts/launchers_coverage.py"""
import glob, json, os, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
samples = {}
for f in sorted(glob.glob(ROOT + '/patterns/*.json')):
    for s in json.load(open(f))['signatures']:
        samples[s['id']] = [x['line'] if isinstance(x, dict) else x for x in s['samples']]


def sample_for(msg, lines):
    pieces = [p.strip() for p in msg.split('{}') if len(p.strip()) >= 4]
    for line in lines:
        pos = 0
        ok = True
        for p in pieces:
            i = line.find(p, pos)
            if i < 0:
                ok = False
                break
            pos = i + len(p)
        if ok:
            return line
    return ''


SL = 'slurm'
R = []
EXPL = {}
def row(file, first, last, level, fmt, mapping, note='', sample=''):
    R.append([file, first, last, level, fmt, mapping, note])
    if sample:
        EXPL[len(R) - 1] = sample

# ---------------- Slurm (SchedMD/slurm tags 17.11 .. 26.05 read); its error lines are slurm.tsv's (infra_coverage.py),
# these two notices are not error lines
row('slurm src/srun/launch.c', '17.11', '26.05', 'verbose', '{}: task {}: Completed', 'benign:normal task exit (printed with -v)')
row('slurm src/api/step_launch.c', '17.11', '26.05', 'info', 'Force Terminated {}', 'benign:srun ends the step after the abort wait')
# ---------------- Open MPI / PRRTE: every help text is in openmpi.tsv / prrte.tsv (infra_coverage.py); these rows
# are the signal-specific instances of "exited on signal {} ({})", each with its own signature
O4 = 'ompi orte/tools/orterun/help-orterun.txt'
row(O4, '3.1.6', '4.1.6', 'error', '{} noticed that process rank {} with PID {} on node {} exited on signal 9 (Killed).', 'sig:launch.mpi_rank_sigkill')
row(O4, '3.1.6', '4.1.6', 'error', '{} noticed that process rank {} with PID {} on node {} exited on signal 11 (Segmentation fault).', 'sig:launch.mpi_rank_sigsegv')
row(O4, '3.1.6', '4.1.6', 'error', '{} noticed that process rank {} with PID {} on node {} exited on signal 7 (Bus error).', 'sig:launch.mpi_rank_sigbus')
row(O4, '3.1.6', '4.1.6', 'error', '{} noticed that process rank {} with PID {} on node {} exited on signal 6 (Aborted).', 'sig:launch.mpi_rank_sigabrt')
# ---------------- DeepSpeed launcher
DS = 'deepspeed deepspeed/launcher/launch.py'
row(DS, '0.6.0', '0.16.4', 'error', '{} exits with return code = -9', 'sig:launch.deepspeed_return_sigkill')
row(DS, '0.6.0', '0.16.4', 'error', '{} exits with return code = -11', 'sig:launch.deepspeed_return_sigsegv')
row(DS, '0.6.0', '0.16.4', 'error', '{} exits with return code = -7', 'sig:launch.deepspeed_return_sigbus')
row(DS, '0.6.0', '0.16.4', 'error', '{} exits with return code = -6', 'sig:launch.deepspeed_return_sigabrt')
row(DS, '0.6.0', '0.16.4', 'error', '{} exits with return code = 1', 'sig:launch.deepspeed_return_error', 'any positive code')
row(DS, '0.6.0', '0.16.4', 'info', 'Killing subprocess {}', 'benign:the launcher stops the other ranks after one failed')
# ---------------- Python subprocess (accelerate launch simple launcher, custom launchers)
PY = 'cpython Lib/subprocess.py'
row(PY, '3.8', '3.13', 'raise', "Command '{}' died with <Signals.SIGKILL: 9>.", 'sig:launch.subprocess_sigkill')
row(PY, '3.8', '3.13', 'raise', "Command '{}' died with <Signals.SIGSEGV: 11>.", 'sig:launch.subprocess_sigsegv')
row(PY, '3.8', '3.13', 'raise', "Command '{}' died with <Signals.SIGBUS: 7>.", 'sig:launch.subprocess_sigbus')
row(PY, '3.8', '3.13', 'raise', "Command '{}' died with <Signals.SIGABRT: 6>.", 'sig:launch.subprocess_sigabrt')
row(PY, '3.8', '3.13', 'raise', "Command '{}' returned non-zero exit status {}.", 'sig:launch.subprocess_nonzero')
# ---------------- Kubernetes
K = 'kubernetes kubelet / kubectl'
row(K, '1.x', '1.x', 'status', 'Reason:       OOMKilled', 'sig:launch.k8s_oomkilled')
row(K, '1.x', '1.x', 'status', 'Exit Code:    137', 'sig:launch.k8s_exit_137')
row(K, '1.x', '1.x', 'status', 'command terminated with exit code 137', 'sig:launch.k8s_exit_137')
row(K, '1.x', '1.x', 'event', 'The node was low on resource: {}. Container {} was using {}, which exceeds its request of {}.', 'sig:launch.k8s_evicted')
row(K, '1.x', '1.x', 'status', 'Reason:       Evicted', 'sig:launch.k8s_evicted')
row(K, '1.x', '1.x', 'event', 'Pod ephemeral local storage usage exceeds the total limit of containers {}.', 'sig:launch.k8s_evicted', '', '  Message:      Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.')
# ---------------- Ray, vLLM, SGLang
row('ray python/ray/exceptions.py', '2.2', '2.54', 'raise', 'Task was killed due to the node running low on memory.', 'sig:launch.ray_memory_monitor')
row('ray src/ray/raylet/node_manager.cc', '2.55', '2.58', 'raise', '{} worker(s) were killed due to the node running low on memory.', 'sig:launch.ray_memory_monitor', 'wording from Ray 2.55 (not seen in a real log here; the regex covers it)', 'ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory.')
row('ray python/ray/exceptions.py', '2.0', '2.58', 'raise', 'The actor died unexpectedly before finishing this task.', 'sig:launch.ray_actor_died')
row('ray python/ray/exceptions.py', '2.0', '2.58', 'raise', 'ActorDiedError', 'sig:launch.ray_actor_died')
row('ray src/ray/gcs', '2.0', '2.58', 'warning', 'The node with node id: {} and address: {} and node name: {} has been marked dead because the detector has missed too many heartbeats from it.', 'sig:launch.ray_node_dead')
row('ray raylet', '2.0', '2.58', 'error', 'A worker died or was killed while executing a task by an unexpected system error.', 'not-yet', 'a worker died; its exit detail line (SYSTEM_ERROR, NODE_OUT_OF_MEMORY) says why')
row('vllm vllm/v1/executor/multiproc_executor.py', '0.8', '0.11', 'error', 'Worker proc {} died unexpectedly, shutting down executor.', 'sig:launch.vllm_worker_died')
row('vllm vllm/v1/executor/ray_executor_v2.py', '0.11', '0.11', 'error', 'RayWorkerProc rank={} died unexpectedly, shutting down executor.', 'sig:launch.vllm_worker_died')
row('vllm vllm/v1/engine/exceptions.py', '0.8', '0.11', 'raise', 'EngineCore encountered an issue. See stack trace (above) for the root cause.', 'sig:launch.vllm_engine_dead')
row('vllm vllm/v1/engine/utils.py', '0.8', '0.11', 'raise', 'Engine core initialization failed. See root cause above. Failed core proc(s): {}', 'sig:launch.vllm_engine_dead')
row('vllm vllm/config.py', '0.4', '0.11', 'raise', 'Total number of attention heads ({}) must be divisible by tensor parallel size ({}).', 'sig:launch.vllm_tp_heads_indivisible')
row('sglang python/sglang/srt/entrypoints/engine.py', '0.4', '0.5', 'error', 'Received sigquit from a child process. It usually means the child failed.', 'sig:launch.sglang_child_failed')
row('sglang python/sglang/srt/managers/scheduler.py', '0.4', '0.5', 'error', 'Scheduler hit an exception: {}', 'derived:RANK_FAILURE', 'the traceback after it decides')
# ---------------- Horovod
row('horovod horovod/common/stall_inspector.cc', '0.20', '0.28.1', 'warning', 'One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than {} seconds.', 'sig:launch.horovod_stalled_tensors')
row('horovod horovod/common/common.h', '0.20', '0.28.1', 'raise', 'Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.', 'sig:launch.horovod_shut_down')
row('horovod horovod/runner/gloo_run.py', '0.20', '0.28.1', 'raise', 'Horovod detected that one or more processes exited with non-zero status, thus causing the job to be terminated.', 'sig:launch.mpi_nonzero_exit')
# ---------------- The NVIDIA driver: the Linux and NVRM messages are kernel.tsv's and xid.tsv's; these are not there
row('nvidia-smi (NVML)', '470', '580', 'error', 'Failed to initialize NVML: Driver/library version mismatch', 'sig:kernel.nvrm_api_mismatch')
XID = 'nvidia Xid (NVRM: Xid (PCI:{}): N, ...)'
# xid.tsv (generated from the driver's nverror.h) has the other codes; these two are not among its rows
for x, sig, note in [('8', 'kernel.xid_stopped', 'GPU stopped processing'), ('109', 'kernel.xid_stopped', 'context switch timeout')]:
    row(XID, '470', '580', 'kernel', 'NVRM: Xid (PCI:{}): %s, {}' % x, 'sig:' + sig, note,
        'kernel: NVRM: Xid (PCI:0000:b7:00): %s, pid=31742, name=python' % x)
row(XID, '550', '580', 'kernel', 'NVRM: Xid (PCI:{}): 154, GPU recovery action changed from {} ({}) to {} ({})', 'sig:kernel.xid_reset_required')
row('nvidia src/nvidia/arch/nvalloc/unix/src/osapi.c', '470', '580', 'kernel', 'NVRM: The NVIDIA GPU {} (PCI ID: {})', 'sig:kernel.gpu_unsupported_by_driver', 'followed by "installed in this system is not supported by the ... driver release"')
# ---------------- CUDA runtime error strings (cudaGetErrorString), by number
CU = 'cuda runtime cudaGetErrorString'
for num, text, mapping, note in [
    ('1', 'invalid argument', 'derived:CUDA_ERROR_OTHER', 'too generic alone: the call that failed decides'),
    ('2', 'out of memory', 'sig:oom.cuda_error_oom', ''),
    ('3', 'initialization error', 'sig:cudart.init_error_plain', 'NCCL form: cuda.init_error'),
    ('4', 'driver shutting down', 'benign:printed when CUDA calls run during interpreter exit', ''),
    ('34', 'CUDA driver is a stub library', 'sig:cudart.stub_library', ''),
    ('35', 'CUDA driver version is insufficient for CUDA runtime version', 'sig:ver.driver_insufficient', ''),
    ('46', 'CUDA-capable device(s) is/are busy or unavailable', 'sig:cudart.devices_busy', ''),
    ('98', 'invalid device function', 'sig:cudart.invalid_device_function', ''),
    ('100', 'no CUDA-capable device is detected', 'sig:cudart.no_device', ''),
    ('101', 'invalid device ordinal', 'sig:device.invalid_ordinal', ''),
    ('209', 'no kernel image is available for execution on the device', 'sig:ver.no_kernel_image', ''),
    ('214', 'uncorrectable ECC error encountered', 'sig:cuda.ecc_uncorrectable', ''),
    ('217', 'peer access is not supported between these two devices', 'not-yet', 'P2P (the NCCL form is keyed by the p2p signatures)'),
    ('220', 'uncorrectable NVLink error detected during the execution', 'sig:cudart.nvlink_uncorrectable', ''),
    ('222', 'the provided PTX was compiled with an unsupported toolchain.', 'sig:cudart.unsupported_ptx', ''),
    ('400', 'invalid resource handle', 'derived:CUDA_ERROR_OTHER', 'generic'),
    ('700', 'an illegal memory access was encountered', 'sig:cuda.illegal_address', ''),
    ('701', 'too many resources requested for launch', 'sig:cudart.too_many_resources', ''),
    ('702', 'the launch timed out and was terminated', 'sig:cudart.launch_timeout', ''),
    ('710', 'device-side assert triggered', 'sig:cuda.device_assert', ''),
    ('714', 'hardware stack error', 'sig:cudart.kernel_exception', ''),
    ('715', 'an illegal instruction was encountered', 'sig:cudart.kernel_exception', ''),
    ('716', 'misaligned address', 'sig:cudart.kernel_exception', 'matched as "CUDA error: misaligned address"'),
    ('718', 'invalid program counter', 'sig:cudart.kernel_exception', ''),
    ('719', 'unspecified launch failure', 'sig:cuda.launch_failure', ''),
    ('801', 'operation not supported', 'not-yet', 'too generic alone'),
    ('802', 'system not yet initialized', 'sig:fabric.system_not_initialized', ''),
    ('803', 'system has unsupported display driver / cuda driver combination', 'sig:cudart.system_driver_mismatch', ''),
    ('804', 'forward compatibility was attempted on non supported HW', 'sig:cudart.compat_not_supported', ''),
    ('805', 'MPS client failed to connect to the MPS control daemon or the MPS server', 'sig:cudart.mps_failure', ''),
    ('808', 'MPS server is not ready to accept new MPS client requests', 'sig:cudart.mps_failure', ''),
    ('810', 'the MPS client has been terminated by the server', 'sig:cudart.mps_failure', ''),
    ('900', 'operation not permitted when stream is capturing', 'sig:cudart.capture_violation', ''),
    ('901', 'operation failed due to a previous error during capture', 'sig:cudart.capture_violation', ''),
    ('999', 'unknown error', 'sig:cudart.unknown_error', 'matched as "CUDA error: unknown error"')]:
    row(CU, '11.0', '13.0', 'error:%s' % num, 'CUDA error: ' + text, mapping, note,
        ('RuntimeError: CUDA error: ' + text) if mapping.startswith('sig:') else '')
row('pytorch c10/cuda/CUDAFunctions.cpp', '1.13.1', '2.6.0', 'raise', 'Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx', 'sig:cudart.no_driver')
row('pytorch c10/cuda/CUDAFunctions.cpp', '1.13.1', '2.6.0', 'raise', 'The NVIDIA driver on your system is too old (found version {}).', 'sig:cudart.driver_too_old_torch')
row('pytorch c10/util (c10::Error backtrace)', '1.13.1', '2.11', 'error', 'Exception raised from {} at {}:{} (most recent call first):', 'sig:c10d.cpp_exception_origin')
row('pytorch c10/util (c10::Error backtrace)', '1.13.1', '2.11', 'error', 'frame #{}: {}', 'benign:C++ stack frame under the exception line')
row('libstdc++ verbose terminate handler', 'gcc', 'gcc', 'error', "terminate called after throwing an instance of '{}'", 'sig:launch.cpp_terminate')
row('lightning src/lightning/fabric/utilities/device_parser.py', '2.0', '2.5', 'raise', 'GPUs requested but none are available.', 'sig:cudart.no_driver')
row('pytorch c10/cuda/CUDAFunctions.cpp', '1.13.1', '2.6.0', 'warn', 'CUDA initialization: {}', 'derived:CUDA_ERROR_OTHER', 'wrapper: the CUDA error after it decides (804, 803, 802 are matched)')

out = []
miss = 0
for ri, r in enumerate(R):
    sample = EXPL.get(ri, '')
    if r[5].startswith('sig:') and not sample:
        lines = samples.get(r[5][4:])
        if lines is None:
            print('NO SIG', r[5]); miss += 1; continue
        fmt = r[4]
        sample = sample_for(fmt, lines)
        if not sample:
            print('no instance sample for', r[5], '|', fmt); miss += 1
    out.append(r + [sample])
with open(ROOT + '/patterns/coverage/launchers.tsv', 'w') as f:
    f.write('# Launcher, scheduler, kernel and CUDA-runtime failure messages and what nccl-triage maps them to.\n')
    f.write('# Hand-written from the sources read: Slurm (SchedMD/slurm tags 17.11 .. 26.05), Open MPI v3.1.6/v4.1.6,\n')
    f.write('# DeepSpeed v0.6.0 .. v0.16.4, CPython subprocess, Horovod v0.28.1, the NVIDIA driver and Xid catalog,\n')
    f.write('# CUDA runtime error strings; Kubernetes, Ray, vLLM and SGLang from their documented or quoted output.\n')
    f.write('# Slurm\'s error lines, Open MPI\'s and PRRTE\'s help texts, the Linux and NVRM messages have their own tables\n')
    f.write('# (slurm.tsv, openmpi.tsv, prrte.tsv, kernel.tsv, xid.tsv); a row here is one they do not list.\n')
    f.write('# first_release/last_release are the program\'s own versions. The sample of a sig: row is one of the\n')
    f.write('# signature\'s samples; check-db checks that the signature matches it.\n')
    f.write('# style: braces\n')
    f.write('file\tfirst_release\tlast_release\tlevel\tformat\tmapping\tnote\tsample\n')
    for r in out:
        f.write('\t'.join(x.replace('\t', ' ') for x in r) + '\n')
print(len(out), 'rows', miss, 'problems')
