"""Buys one proxy plan and exports its proxies (credentials as a secret) and the account's usage."""
import pulumi
import pulumi_proxy as proxy

config = pulumi.Config()
order = proxy.ProxyOrder("order", plan_id=config.get("planId") or "dc-us-5")

proxies = proxy.get_proxies_output(order_id=order.order_id)
usage = proxy.get_usage_output()

pulumi.export("orderId", order.order_id)
pulumi.export("status", order.status)
pulumi.export("proxies", proxies.proxies)
pulumi.export("credentials", order.credentials)
pulumi.export("requestsUsed", usage.requests.used)
