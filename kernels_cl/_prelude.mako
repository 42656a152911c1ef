## Shared by every template: what a unit needs for its element type T.
% if T == "double":
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
% endif
