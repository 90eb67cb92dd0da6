package io.vfiodp.dra;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * The kubelet's prepare and unprepare calls, on the gRPC handler thread: claims not prepared yet
 * are read from the API here (slow calls stay off the driver's thread), then the driver's step
 * decides the rest on its thread, and the answer comes back once the checkpoint holds it. Every
 * claim of a call gets its own answer; a bad one never fails the others.
 */
final class KubeletClaims implements ClaimHandler {

    /** Below the kubelet's 45 s call timeout, so that a stuck step still answers. */
    private static final Duration LOOP_WAIT = Duration.ofSeconds(30);
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern UID = Pattern.compile("[A-Za-z0-9][-A-Za-z0-9_.]{0,127}");

    private final DriverLoop loop;
    private final ClaimSource source;
    private final ClaimFiles files;
    private final ClaimRecovery recovery;
    private final ClaimStatusWriter status;

    /** @param status told each claim prepared, once its answer is made: it writes the claim's status later, on another thread */
    KubeletClaims(DriverLoop loop, ClaimSource source, ClaimFiles files, ClaimRecovery recovery, ClaimStatusWriter status) {
        this.loop = loop;
        this.source = source;
        this.files = files;
        this.recovery = recovery;
        this.status = status;
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
            Optional<ClaimSource.Fetched> fetched = loop.isPrepared(c.getUid()) ? Optional.empty() : Optional.of(source.fetch(c.getNamespace(), c.getName()));
            requests.add(new ClaimRequest(c.getNamespace(), c.getUid(), c.getName(), fetched));
        }
        if (requests.isEmpty()) return out.build();
        // the checkpoint was lost: what the kubelet still has prepared is read first, so that no claim takes a device one of those holds
        if (loop.lost().isPresent()) loop.kubeletClaimsRead(recovery.read(loop.bookNames()));
        Map<String, PrepareAnswer> answers;
        try {
            answers = loop.prepare(requests).get(LOOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            for (ClaimRequest r : requests) {
                out.putClaims(r.uid(), failed("the DRA driver could not prepare the claim: " + e));
            }
            return out.build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        answers.forEach((uid, a) -> out.putClaims(uid, switch (a) {
            case PrepareAnswer.Failed f -> failed(f.reason());
            case PrepareAnswer.Prepared p -> {
                NodePrepareResourceResponse.Builder b = NodePrepareResourceResponse.newBuilder();
                for (ClaimFiles.CdiDevices d : files.cdiDevices(p.claim())) {
                    b.addDevices(Device.newBuilder().addRequestNames(d.device().baseRequest()).setPoolName(d.device().pool())
                            .setDeviceName(d.device().device()).addAllCdiDeviceIds(d.ids()));
                }
                yield b.build();
            }
        }));
        // only queued: the API write never holds up the kubelet's answer
        answers.values().forEach(a -> {
            if (a instanceof PrepareAnswer.Prepared p) status.prepared(p.claim());
        });
        loop.listener().claimsAnswered();
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
        Map<String, Optional<String>> answers;
        try {
            answers = loop.unprepare(refs).get(LOOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            answers = new LinkedHashMap<>();
            for (ClaimRef r : refs) answers.put(r.uid(), Optional.of("the DRA driver could not unprepare the claim: " + e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        answers.forEach((uid, error) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error.orElse("")).build()));
        loop.listener().claimsAnswered();
        return out.build();
    }

    /** The kubelet's answer for a claim that cannot be prepared; counted. */
    private NodePrepareResourceResponse failed(String reason) {
        loop.listener().prepareFailed(reason);
        return NodePrepareResourceResponse.newBuilder().setError(reason).build();
    }

    /** A claim reference no API object can have: answered at once, and its names never reach a file path. */
    private static Optional<String> malformed(Claim c) {
        String what = "claim " + c.getNamespace() + "/" + c.getName() + " (UID " + c.getUid() + ")";
        if (!UID.matcher(c.getUid()).matches()) return Optional.of(what + ": malformed UID");
        if (!DNS_LABEL.matcher(c.getNamespace()).matches()) return Optional.of(what + ": malformed namespace");
        if (c.getName().length() > 253 || !DNS_SUBDOMAIN.matcher(c.getName()).matches()) return Optional.of(what + ": malformed name");
        return Optional.empty();
    }
}
