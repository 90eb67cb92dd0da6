package io.vfiodp.dra;

import java.util.Optional;

/**
 * The driver's standing, for probes, metrics and logs.
 *
 * @param serving        both sockets are served
 * @param registered     the kubelet's last registration verdict; empty before the first
 * @param devices        devices offered through DRA
 * @param healthy        of which healthy (published in the ResourceSlices)
 * @param preparedClaims claims prepared and not yet unprepared
 * @param generation     the pool generation the API holds, as the slice publisher last saw it
 * @param sliceProblem   why the slices could not be written, when they could not
 */
public record DraStatus(boolean serving, Optional<Boolean> registered, int devices, int healthy, int preparedClaims, long generation,
                        Optional<String> sliceProblem) {}
