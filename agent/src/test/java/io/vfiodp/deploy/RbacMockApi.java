package io.vfiodp.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fabric8 mock API server over TLS (as the in-cluster API is) that authorizes one service
 * account's bearer token the way the API server's RBAC would: a resource request its roles do
 * not grant gets the API server's 403 Status. The test's own client ({@link #admin()}) may do
 * anything; any other request gets 401. Every request of the service account is recorded.
 */
final class RbacMockApi implements AutoCloseable {

    private static final String ADMIN_TOKEN = "the-test-itself";

    private final KubernetesMockServer server;
    private final KubernetesClient admin;
    private final String token;
    private final Set<String> grants;
    private final List<String> allowed = new ArrayList<>();
    private final List<String> forbidden = new ArrayList<>();
    private final List<String> unauthenticated = new ArrayList<>();

    /**
     * @param rbac    ServiceAccount, (Cluster)Roles and (Cluster)RoleBindings; the grants of {@code subject} count
     * @param subject the service account whose token is {@code token}
     */
    RbacMockApi(List<HasMetadata> rbac, Subject subject, String token) {
        this.token = token;
        this.grants = grants(rbac, subject);
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(responses);
        this.server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), responses,
                new Authorizing(crud), true);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.admin = new KubernetesClientBuilder().withConfig(new ConfigBuilder(Config.empty())
                .withMasterUrl("https://127.0.0.1:" + server.getPort())
                .withTrustCerts(true)
                .withOauthToken(ADMIN_TOKEN)
                .withNamespace("default")
                .withHttp2Disable(true)
                .build()).build();
    }

    int port() {
        return server.getPort();
    }

    KubernetesClient admin() {
        return admin;
    }

    /** Every {@code verb group/resource in scope} the service account was granted. */
    Set<String> grants() {
        return grants;
    }

    /** The service account's resource requests that RBAC allowed, as {@code verb group/resource in scope}. */
    synchronized List<String> allowed() {
        return List.copyOf(allowed);
    }

    /** The service account's resource requests answered 403. */
    synchronized List<String> forbidden() {
        return List.copyOf(forbidden);
    }

    /** Resource requests with neither token (a client that did not read the service account's), answered 401. */
    synchronized List<String> unauthenticated() {
        return List.copyOf(unauthenticated);
    }

    private final class Authorizing extends Dispatcher {
        private final Dispatcher crud;

        Authorizing(Dispatcher crud) {
            this.crud = crud;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Optional<ApiCall> call = ApiCall.of(request);
            String auth = request.getHeader("Authorization");
            if (call.isEmpty() || ("Bearer " + ADMIN_TOKEN).equals(auth)) return crud.dispatch(request);
            ApiCall c = call.get();
            if (!("Bearer " + token).equals(auth)) {
                synchronized (RbacMockApi.this) {
                    unauthenticated.add(c.grantNeeded());
                }
                return new MockResponse().setResponseCode(401).setHeader("Content-Type", "application/json")
                        .setBody(Serialization.asJson(new StatusBuilder().withStatus("Failure").withMessage("Unauthorized")
                                .withReason("Unauthorized").withCode(401).build()));
            }
            boolean ok = grants.contains(c.grantNeeded()) || grants.contains(c.verb() + " " + c.group() + "/" + c.resource() + " in all namespaces");
            synchronized (RbacMockApi.this) {
                (ok ? allowed : forbidden).add(c.grantNeeded());
            }
            if (ok) return crud.dispatch(request);
            String scope = c.namespace().map(ns -> "in the namespace \"" + ns + "\"").orElse("at the cluster scope");
            String message = c.resource() + (c.group().isEmpty() ? "" : "." + c.group()) + " is forbidden: User \"system:serviceaccount:"
                    + GpuOperatorSandbox.NAMESPACE + ":" + GpuOperatorSandbox.NAME + "\" cannot " + c.verb() + " resource \"" + c.resource()
                    + "\" in API group \"" + c.group() + "\" " + scope;
            return new MockResponse().setResponseCode(403).setHeader("Content-Type", "application/json")
                    .setBody(Serialization.asJson(new StatusBuilder().withStatus("Failure").withMessage(message).withReason("Forbidden")
                            .withNewDetails().withGroup(c.group()).withKind(c.resource()).endDetails().withCode(403).build()));
        }
    }

    /** Every {@code verb group/resource in scope} {@code rbac} grants {@code subject}. */
    static Set<String> grants(List<HasMetadata> rbac, Subject subject) {
        Set<String> out = new TreeSet<>();
        for (HasMetadata o : rbac) {
            if (o instanceof ClusterRoleBinding b && b.getSubjects().contains(subject)) {
                add(out, find(rbac, ClusterRole.class, b.getRoleRef().getName()).getRules(), "all namespaces");
            } else if (o instanceof RoleBinding b && b.getSubjects().contains(subject)) {
                add(out, find(rbac, Role.class, b.getRoleRef().getName()).getRules(), b.getMetadata().getNamespace());
            }
        }
        return out;
    }

    private static <T extends HasMetadata> T find(List<HasMetadata> rbac, Class<T> type, String name) {
        return rbac.stream().filter(type::isInstance).map(type::cast).filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }

    private static void add(Set<String> out, List<PolicyRule> rules, String scope) {
        for (PolicyRule r : rules) {
            // a rule limited to named objects grants nothing the plugin asks for by kind
            if (r.getResourceNames() != null && !r.getResourceNames().isEmpty()) continue;
            for (String group : r.getApiGroups()) {
                for (String resource : r.getResources()) {
                    for (String verb : r.getVerbs()) out.add(verb + " " + group + "/" + resource + " in " + scope);
                }
            }
        }
    }

    @Override
    public void close() {
        admin.close();
        server.destroy();
    }
}
