package engine

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// stepWriteS3Object writes the rendered content to bucket/key on S3 or any
// S3-compatible store. Credentials come from the server's environment
// unless the step carries its own.
func stepWriteS3Object(ctx context.Context, x *Exec) (Result, error) {
	bucket, _ := x.Step.String("bucket")
	key, err := x.Field("key", "")
	if err != nil {
		return Result{}, err
	}
	if bucket == "" || strings.TrimSpace(key) == "" {
		return Result{}, fmt.Errorf("write_aws_s3_object needs bucket and key")
	}
	content, err := x.Field("content", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	ct, _ := x.Step.String("content_type")
	if ct == "" {
		ct = "text/plain"
	}
	region, _ := x.Step.String("region")
	endpoint, _ := x.Step.String("endpoint_url")
	pathStyle, _ := x.Step.Bool("force_path_style")
	opts := []func(*awsconfig.LoadOptions) error{}
	if region != "" {
		opts = append(opts, awsconfig.WithRegion(region))
	} else {
		opts = append(opts, awsconfig.WithRegion("us-east-1"))
	}
	ak, _ := x.Step.String("access_key_id")
	sk, _ := x.Step.String("secret_access_key")
	if ak != "" && sk != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(ak, sk, "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return Result{}, err
	}
	if endpoint != "" {
		if err := checkEndpoint(endpoint); err != nil {
			return Result{}, err
		}
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
		o.HTTPClient = x.Engine().Webhooks.client()
	})
	b, err := s3blob.OpenBucket(ctx, client, bucket, nil)
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	if err := b.WriteAll(ctx, key, []byte(content), &blob.WriterOptions{ContentType: ct}); err != nil {
		return Result{}, fmt.Errorf("write s3://%s/%s: %w", bucket, key, err)
	}
	loc := "s3://" + bucket + "/" + key
	if endpoint != "" {
		u, _ := url.Parse(strings.TrimRight(endpoint, "/"))
		if u != nil {
			loc = u.String() + "/" + bucket + "/" + key
		}
	}
	return Result{Output: loc}, nil
}

// checkEndpoint refuses an endpoint URL that is not http(s).
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint_url %q: want an http(s) URL", endpoint)
	}
	return nil
}
