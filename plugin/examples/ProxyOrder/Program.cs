using System.Collections.Generic;
using Pulumi;
using Proxy = PulumiProxy.Proxy;

return await Deployment.RunAsync(() =>
{
    // One order of the plan dc-us-5, renewed by a new purchase a week before it expires.
    var order = new Proxy.ProxyOrder("order", new()
    {
        PlanId = "dc-us-5",
        RenewBefore = "7d",
    });

    return new Dictionary<string, object?>
    {
        ["orderId"] = order.OrderId,
        ["proxies"] = order.Proxies,
        // Secret: each proxy's address, and its username and password when the plan has them.
        ["credentials"] = order.Credentials,
    };
});
