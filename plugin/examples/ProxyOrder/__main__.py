import pulumi
import pulumi_proxy as proxy

# One order of the plan dc-us-5, renewed by a new purchase a week before it expires.
order = proxy.ProxyOrder("order",
    plan_id="dc-us-5",
    renew_before="7d")

pulumi.export("orderId", order.order_id)
pulumi.export("proxies", order.proxies)
# Secret: each proxy's address, and its username and password when the plan has them.
pulumi.export("credentials", order.credentials)
