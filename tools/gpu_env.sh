# Source this on the GPU machine (docs/devices/README.md): registers the NVIDIA ICD beside
# the installed ones and installs PyOpenCL from the wheels carried in .whl/.
mkdir -p /tmp/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/vendors/nvidia.icd
cp /etc/OpenCL/vendors/*.icd /tmp/vendors/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/vendors
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
