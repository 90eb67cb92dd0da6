package io.vfiodp.dra.kubelet;

import io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesResponse;

/** What the DRA node service does with the kubelet's calls; may block (it reads claims from the API). */
public interface ClaimHandler {

    NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request);

    NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request);
}
