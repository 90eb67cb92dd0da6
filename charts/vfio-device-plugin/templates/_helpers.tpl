{{/* The release's name for its objects: the release name, with the chart's name unless it holds it already. */}}
{{- define "vfio-device-plugin.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels selectors use: kustomize's app.kubernetes.io/name and the release. */}}
{{- define "vfio-device-plugin.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels. */}}
{{- define "vfio-device-plugin.labels" -}}
{{ include "vfio-device-plugin.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "vfio-device-plugin.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Whether any resource goes through DRA. */}}
{{- define "vfio-device-plugin.dra" -}}
{{- if kindIs "slice" .Values.dra.resources -}}
{{- if .Values.dra.resources }}true{{ end -}}
{{- else if ne (toString .Values.dra.resources) "none" -}}
true
{{- end -}}
{{- end -}}

{{/*
Objects of one of deploy/'s files (files/deploy links there), for this release: the kustomize names
vfio-device-plugin[-...] become the release's, its namespace and service account the release's, the labels the
chart's. Cluster-wide objects named otherwise (the DeviceClasses) keep their names. The chart thereby renders the
RBAC rules, DeviceClasses and alerts of deploy/ exactly, whatever is added to those files.
Arguments: (list $ "files/deploy/base/rbac.yaml" subjectNamespace subjectName).
*/}}
{{- define "vfio-device-plugin.fromDeploy" -}}
{{- $ := index . 0 -}}
{{- $file := index . 1 -}}
{{- $subjectNamespace := index . 2 -}}
{{- $subjectName := index . 3 -}}
{{- $fullname := include "vfio-device-plugin.fullname" $ -}}
{{- $content := $.Files.Get $file -}}
{{- if not $content -}}
{{- fail (printf "the chart has no %s: files/deploy must link to the repository's deploy/ directory" $file) -}}
{{- end -}}
{{- range $doc := regexSplit "(?m)^---[ \t]*$" $content -1 }}
{{- $o := fromYaml $doc }}
{{- if $o.kind }}
{{- $meta := $o.metadata }}
{{- if hasPrefix "vfio-device-plugin" $meta.name }}
{{- $_ := set $meta "name" (printf "%s%s" $fullname (trimPrefix "vfio-device-plugin" $meta.name)) }}
{{- end }}
{{- if eq (toString $meta.namespace) "vfio-device-plugin" }}
{{- $_ := set $meta "namespace" $.Release.Namespace }}
{{- end }}
{{- $_ := set $meta "labels" (merge (fromYaml (include "vfio-device-plugin.labels" $)) (default dict $meta.labels)) }}
{{- if and $o.roleRef (hasPrefix "vfio-device-plugin" $o.roleRef.name) }}
{{- $_ := set $o.roleRef "name" (printf "%s%s" $fullname (trimPrefix "vfio-device-plugin" $o.roleRef.name)) }}
{{- end }}
{{- range $s := $o.subjects }}
{{- $_ := set $s "namespace" $subjectNamespace }}
{{- $_ := set $s "name" $subjectName }}
{{- end }}
---
{{ toYaml $o }}
{{- end }}
{{- end }}
{{- end -}}
