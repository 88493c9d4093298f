// Buy and manage proxies through the Proxy Provisioning API.
package proxy
