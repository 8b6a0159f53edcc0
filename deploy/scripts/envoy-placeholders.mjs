// The Helm chart's copy of the Envoy configuration carries these placeholders; templates/envoy.yaml replaces
// them with the release's fully qualified name and `envoy.xffNumTrustedHops`.
export const FULLNAME_PLACEHOLDER = '__FULLNAME__';
export const XFF_PLACEHOLDER = '__XFF_NUM_TRUSTED_HOPS__';
export const CHART_ENVOY_OPTIONS = {
  upstreamHost: (service) => `${FULLNAME_PLACEHOLDER}-${service}`,
  xffNumTrustedHops: XFF_PLACEHOLDER,
};
