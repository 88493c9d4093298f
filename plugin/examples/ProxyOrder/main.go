package main

import (
	"github.com/pulumi-proxy/pulumi-proxy/sdk/go/proxy"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// One order of the plan dc-us-5, renewed by a new purchase a week before it expires.
		order, err := proxy.NewProxyOrder(ctx, "order", &proxy.ProxyOrderArgs{
			PlanId:      pulumi.String("dc-us-5"),
			RenewBefore: pulumi.String("7d"),
		})
		if err != nil {
			return err
		}
		ctx.Export("orderId", order.OrderId)
		ctx.Export("proxies", order.Proxies)
		// Secret: each proxy's address, and its username and password when the plan has them.
		ctx.Export("credentials", order.Credentials)
		return nil
	})
}
