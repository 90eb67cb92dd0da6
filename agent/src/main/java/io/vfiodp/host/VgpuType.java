package io.vfiodp.host;

/** An NVIDIA vGPU type as {@code creatable_vgpu_types} lists it: numeric id and name. */
public record VgpuType(int id, String name) {}
