package io.vfiodp.dra;

import io.vfiodp.dra.claims.ClaimAllocations;
import io.vfiodp.dra.claims.ClaimFiles;
import io.vfiodp.dra.claims.ClaimRef;
import io.vfiodp.dra.claims.ClaimRequest;
import io.vfiodp.dra.claims.ClaimSource;
import io.vfiodp.dra.claims.ClaimStatusWriter;
import io.vfiodp.dra.claims.PrepareAnswer;
import io.vfiodp.dra.kubelet.ClaimHandler;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.vfiodp.proto.dra.v1.NodeUnprepareResourcesResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The kubelet's prepare and unprepare calls, on the gRPC handler thread: claims not prepared yet
 * are read from the API here, and while the checkpoint is lost what the kubelet still has prepared
 * (slow calls stay off the claims' lock); then {@link ClaimBook} decides, writes and records the
 * rest under its lock, and the answer goes out once the checkpoint holds it. Every claim of a call
 * gets its own answer; a bad one never fails the others.
 */
final class KubeletClaims implements ClaimHandler {

    private static final Pattern UID = Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]{0,127}");

    private final ClaimBook book;
    private final ClaimSource source;
    private final ClaimFiles files;
    private final ClaimRecovery recovery;
    private final ClaimStatusWriter status;
    private final DraListener listener;

    /**
     * @param status   told each claim prepared, once its answer is made: it writes the claim's status later, on another thread
     * @param listener told of failed prepares, and of every answer
     */
    KubeletClaims(ClaimBook book, ClaimSource source, ClaimFiles files, ClaimRecovery recovery, ClaimStatusWriter status, DraListener listener) {
        this.book = book;
        this.source = source;
        this.files = files;
        this.recovery = recovery;
        this.status = status;
        this.listener = listener;
    }

    @Override
    public NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
        NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
        List<ClaimRequest> requests = new ArrayList<>();
        for (Claim c : request.getClaimsList()) {
            Optional<String> bad = malformed(c);
            if (bad.isPresent()) {
                out.putClaims(c.getUid(), failed(bad.get()));
                continue;
            }
            Optional<ClaimSource.Fetched> fetched = book.isPrepared(c.getUid()) ? Optional.empty() : Optional.of(source.fetch(c.getNamespace(), c.getName()));
            requests.add(new ClaimRequest(c.getNamespace(), c.getUid(), c.getName(), fetched));
        }
        if (requests.isEmpty()) return out.build();
        // the checkpoint was lost: what the kubelet still has prepared is read first, so that no claim takes a device one of those holds
        if (book.lost()) book.kubeletRead(recovery.read(book.names()));
        book.prepare(requests).forEach((uid, a) -> out.putClaims(uid, switch (a) {
            case PrepareAnswer.Failed f -> failed(f.reason());
            case PrepareAnswer.Prepared p -> {
                // only queued: the API write never holds up the kubelet's answer
                status.prepared(p.claim());
                NodePrepareResourceResponse.Builder b = NodePrepareResourceResponse.newBuilder();
                for (ClaimFiles.CdiDevices d : files.cdiDevices(p.claim())) {
                    b.addDevices(Device.newBuilder().addRequestNames(d.device().baseRequest()).setPoolName(d.device().pool())
                            .setDeviceName(d.device().device()).addAllCdiDeviceIds(d.ids()));
                }
                yield b.build();
            }
        }));
        listener.claimsAnswered();
        return out.build();
    }

    @Override
    public NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
        NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
        List<ClaimRef> refs = new ArrayList<>();
        for (Claim c : request.getClaimsList()) {
            Optional<String> bad = malformed(c);
            if (bad.isPresent()) {
                out.putClaims(c.getUid(), NodeUnprepareResourceResponse.newBuilder().setError(bad.get()).build());
            } else {
                refs.add(new ClaimRef(c.getNamespace(), c.getUid(), c.getName()));
            }
        }
        if (refs.isEmpty()) return out.build();
        book.unprepare(refs).forEach((uid, error) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error.orElse("")).build()));
        listener.claimsAnswered();
        return out.build();
    }

    /** The kubelet's answer for a claim that cannot be prepared; counted. */
    private NodePrepareResourceResponse failed(String reason) {
        listener.prepareFailed(reason);
        return NodePrepareResourceResponse.newBuilder().setError(reason).build();
    }

    /** A claim reference no API object can have: answered at once, and its names never reach a file path. */
    private static Optional<String> malformed(Claim c) {
        String what = "claim " + new ClaimRef(c.getNamespace(), c.getUid(), c.getName()).describe();
        if (!UID.matcher(c.getUid()).matches()) return Optional.of(what + ": malformed UID");
        if (!ClaimAllocations.DNS_LABEL.matcher(c.getNamespace()).matches()) return Optional.of(what + ": malformed namespace");
        if (c.getName().length() > 253 || !ClaimAllocations.DNS_SUBDOMAIN.matcher(c.getName()).matches()) return Optional.of(what + ": malformed name");
        return Optional.empty();
    }
}
